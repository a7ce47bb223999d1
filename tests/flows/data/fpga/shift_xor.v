// The stand-in design of the nextpnr fixtures here, as it produced nextpnr_overflow.log and
// stat_overflow.json (7000 bits: does not fit an iCE40 UP5K); nextpnr_fit.log is its 100-bit
// form (6999 -> 99, 6998 -> 98). yosys -p 'synth_ice40 -top big -json big.json' shift_xor.v;
// nextpnr-ice40 --up5k --package sg48 --json big.json --asc big.asc --pcf-allow-unconstrained
// --seed 1 --freq 12 [--timing-allow-fail]
module big(input clk, input d, output q);
  reg [6999:0] r;
  always @(posedge clk) r <= {r[6998:0] ^ r[6999:1], d};
  assign q = ^r;
endmodule
