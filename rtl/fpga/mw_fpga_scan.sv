// mw_fpga_scan: the scan interface of the FPGA tops (mw_fpga around mw_accel, mw_fpga_array
// around mw_array): two shift registers in the style of a boundary scan, and all they add (no
// protocol, no host logic). The input chain (shift_i high: one bit per clock from sin_i, the
// last input bit first) feeds an update register that drives in_o (upd_i high for one clock
// copies the chain into it); the output chain captures out_i (cap_i high for one clock) and
// shifts it out on sout_o while shift_i is high. So a host can drive the wrapped design one input
// vector per update and read one output vector per capture, far below its clock rate: the
// chains make a design with hundreds of ports placeable on a small FPGA and its timing
// measurable, not usable at speed. Flops: 2 x InBits + OutBits.
module mw_fpga_scan #(
  parameter int unsigned InBits  = 8,  // input vector
  parameter int unsigned OutBits = 8   // output vector
) (
  input  logic               clk_i,
  input  logic               rst_ni,
  input  logic               sin_i,    // serial input
  input  logic               shift_i,  // shift both chains by one bit
  input  logic               upd_i,    // copy the input chain to in_o
  input  logic               cap_i,    // capture out_i into the output chain
  output logic               sout_o,   // serial output (bit 0 of the output chain)
  output logic [InBits-1:0]  in_o,     // the update register: the wrapped design's inputs
  input  logic [OutBits-1:0] out_i     // the wrapped design's outputs
);

  logic [InBits-1:0]  in_sh_q, in_q;  // input chain, update register
  logic [OutBits-1:0] out_sh_q;       // output chain

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_sh_q  <= '0;
      in_q     <= '0;
      out_sh_q <= '0;
    end else begin
      if (shift_i) begin
        in_sh_q <= {sin_i, in_sh_q[InBits-1:1]};
      end
      if (upd_i) begin
        in_q <= in_sh_q;
      end
      if (cap_i) begin
        out_sh_q <= out_i;
      end else if (shift_i) begin
        out_sh_q <= {1'b0, out_sh_q[OutBits-1:1]};
      end
    end
  end
  assign sout_o = out_sh_q[0];
  assign in_o   = in_q;

endmodule
