"""Networks and layers from ONNX files (the models tests/frontend exports), equal to the CLI's."""

import os
from pathlib import Path

import pytest

import mapwright as mw


@pytest.fixture(scope="module")
def models():
    folder = Path(os.environ.get("MAPWRIGHT_ONNX_MODELS", ""))
    if not (folder / "resnet18.onnx").exists():
        pytest.skip("the ONNX models are not exported (ctest fixture onnx_models)")
    return folder


def test_onnx_network_equals_cli(cli, models):
    path = str(models / "resnet18.onnx")
    net = mw.network(path)
    listed = cli.json("networks", path)
    assert [l.to_dict() for l in net.layers] == listed["layers"]
    assert (net.name, net.description) == (listed["name"], listed["description"])
    assert dict(net.skipped) == listed["skipped"] and net.warnings == listed["warnings"]
    assert net.skipped and net.layers[0].describe() == mw.network("resnet18").layers[0].describe()
    node = net.layers[1].name
    assert mw.layer(f"{path}:{node}").describe() == net.layers[1].describe()


def test_onnx_errors_equal_cli(cli, models, tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"not a protobuf")
    with pytest.raises(mw.Error) as e:
        mw.network(str(bad))
    assert str(e.value) == cli.error("networks", bad)
    with pytest.raises(mw.Error):
        mw.network(str(models / "resnet18.onnx"), input_shapes=["x=1x2"])
