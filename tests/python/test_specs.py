"""Layers, networks, architectures and mappings from Python, and their errors: the CLI's
parsers, so the same inputs give the same specs and the same messages."""

import json

import numpy as np
import pytest

import mapwright as mw


def test_layers_from_zoo_inline_and_yaml(cli, source_dir, tmp_path):
    zoo = mw.layer("resnet50:layer3.0.conv2")
    assert (zoo.k, zoo.c, zoo.h, zoo.r, zoo.stride, zoo.pad) == (256, 256, 28, 3, 2, 1)
    assert zoo.p == 14 and zoo.macs == 256 * 256 * 14 * 14 * 9
    inline = mw.layer("conv:K=256,C=256,H=28,W=28,R=3,S=3,stride=2,pad=1")
    assert inline.describe() == zoo.describe()
    path = tmp_path / "l.yaml"
    path.write_text("type: conv\nname: mine\nK: 256\nC: 256\nH: 28\nW: 28\nR: 3\nS: 3\n"
                    "stride: 2\npad: 1\n")
    from_file = mw.layer(str(path))
    assert from_file.name == "mine" and from_file.describe() == zoo.describe()
    assert mw.Layer.from_dict(zoo.to_dict()).to_dict() == zoo.to_dict()
    listed = cli.json("networks", "resnet50")
    assert next(x for x in listed if x["name"] == "layer3.0.conv2") == zoo.to_dict()


def test_networks_from_zoo_and_yaml(cli, source_dir):
    assert "resnet18" in mw.zoo_names()
    r18 = mw.network("resnet18")
    listed = cli.json("networks", "resnet18")
    assert [l.to_dict() for l in r18.layers] == listed
    assert r18.total_macs == sum(x["macs"] for x in listed)
    tiny = mw.network(str(source_dir / "tests/flows/data/tiny_net.yaml"))
    assert tiny.name == "tiny" and len(tiny) == 3
    assert [c for _, c in r18.unique_layers()][:1] == [1]


def test_archs_by_name_and_file(source_dir):
    assert "small8" in mw.arch_names()
    a = mw.arch("small8")
    assert (a.rows, a.cols, a.dram_port) == (8, 8, "packed")
    f = mw.arch(str(source_dir / "tests/flows/data/tiny2.yaml"))
    assert (f.rows, f.cols, f.name) == (2, 2, "tiny2")
    assert f.dataflows == ["ws", "os", "is"]


def test_mapping_from_dict_round_trips():
    layer = mw.layer("resnet18:layer2.0.conv1")
    m = mw.default_mapping(layer)
    d = m.to_dict()
    assert d["tiles"]["K"] == m.tiles["K"] and d["pe"]["rows"] == m.pe_rows
    again = mw.mapping(d, layer, "default")
    assert again == m and again.to_yaml() == m.to_yaml()
    d["tiles"]["K"] = np.int64(d["tiles"]["K"])  # NumPy scalars are accepted
    assert mw.mapping(d) == m
    assert mw.mapping(m.to_yaml()) == m


def test_bad_layers_carry_the_cli_messages(cli, tmp_path):
    for text in ["conv:K=0,C=3,H=8,W=8", "conv:K=4,C=3,H=8,W=8,Z=1", "resnet50:nope",
                 "nonet:layer1"]:
        with pytest.raises(mw.Error) as e:
            mw.layer(text)
        assert isinstance(e.value, ValueError)
        expected = cli.error("eval", "--layer", text)
        assert str(e.value) == "layer" + expected[len("--layer"):]
        assert e.value.where == "layer" and e.value.key
    bad = tmp_path / "bad.yaml"
    bad.write_text("type: conv\nK: 8\nC: -3\nH: 8\nW: 8\n")
    with pytest.raises(mw.Error) as e:
        mw.layer(str(bad))
    assert str(e.value) == cli.error("eval", "--layer", bad)
    assert (e.value.where, e.value.key, e.value.value) == (str(bad), "C", "-3")


def test_bad_archs_networks_and_mappings(cli, tmp_path):
    with pytest.raises(mw.Error) as e:
        mw.arch("no-such-arch")
    assert str(e.value) == cli.error("eval", "--arch", "no-such-arch", "--layer",
                                     "resnet18:fc")
    with pytest.raises(mw.Error) as e:
        mw.network("lenet")
    assert str(e.value) == cli.error("networks", "lenet")  # the CLI's positional argument
    layer = mw.layer("resnet18:layer2.0.conv1")
    good = mw.default_mapping(layer).to_dict()
    cases = [
        ({**good, "colour": "blue"}, "colour"),                      # unknown key
        ({**good, "dataflow": "zz"}, "dataflow"),                    # unknown value
        ({**good, "tiles": {**good["tiles"], "K": "many"}}, "tiles.K"),  # wrong type
        ({**good, "tiles": {**good["tiles"], "K": 4096}}, "tiles.K"),    # out of range
        ({**good, "pe": {"rows": 99, "cols": 1}}, "pe.rows"),        # beyond the array
        ({**good, "order": ["N", "K"]}, "order"),                    # malformed
    ]
    for spec, key in cases:
        with pytest.raises(mw.Error) as e:
            mw.evaluate(layer, spec, "default")
        assert e.value.key == key, str(e.value)
        path = tmp_path / "m.yaml"
        path.write_text(json.dumps(spec))  # JSON is YAML
        cli_msg = cli.error("eval", "--layer", "resnet18:layer2.0.conv1", "--mapping", path)
        assert str(e.value).replace("mapping: ", f"{path}: ", 1) == cli_msg
    with pytest.raises(mw.Error):
        mw.evaluate(layer, 42, "default")
    with pytest.raises(mw.Error):
        mw.mapping(good, layer)  # a layer without an architecture


def test_every_cpp_exception_is_a_python_exception(tmp_path):
    with pytest.raises(mw.Error):
        mw.search("resnet18:fc", searcher="no-such-searcher")
    with pytest.raises(mw.Error):
        mw.Objective("mix:latency=99")
    with pytest.raises(mw.Error):
        mw.Space("resnet18:fc", "default", "packed")
    with pytest.raises(mw.Error) as e:
        mw.layer("/nonexistent/dir/layer.yaml")
    assert e.value.where == "/nonexistent/dir/layer.yaml"
    not_utf8 = tmp_path / "not_utf8.yaml"
    not_utf8.write_bytes(b'type: conv\nK: "\xff\xfe"\nC: 3\nH: 8\nW: 8\n')
    with pytest.raises(mw.Error) as e:  # the value's bytes are not UTF-8: replaced, not a crash
        mw.layer(str(not_utf8))
    assert e.value.key == "K" and e.value.value == "\ufffd\ufffd"
    with pytest.raises(TypeError):  # pybind11's own argument check
        mw.arch(3)
