// mw_fpga: mw_accel behind a scan interface of seven pins, so that an accelerator with
// hundreds of ports can be placed and routed on a small FPGA (an iCE40 has 39 to 206 I/O pins).
//
// What the wrapper adds, and all it adds: the scan chains of mw_fpga_scan (an input chain with
// an update register driving every input of mw_accel, an output chain capturing every output),
// which make the design placeable and its timing measurable, not usable at speed. Their flops
// (2 x 110 + 205 at 4-byte beats) and multiplexers are in the utilization the FPGA flow reports.
//
// Input vector, from bit 0: cmd_valid, cmd_data[63:0], cmd_last, dram_rd_valid, dram_rd_last,
// dram_rd_data, dram_wr_ready, dram_wr_done, csr_addr[7:0]. Output vector, from bit 0:
// cmd_ready, dram_req_valid, dram_req_write, dram_req_bytes[31:0], dram_req_addr[39:0],
// dram_req_id[31:0], dram_wr_valid, dram_wr_data, csr_rdata[63:0], idle.
module mw_fpga #(
  parameter int unsigned Rows        = 2,
  parameter int unsigned Cols        = 2,
  parameter int unsigned InBufBytes  = 256,
  parameter int unsigned WtBufBytes  = 256,
  parameter int unsigned AccBufWords = 64,
  parameter int unsigned BeatBytes   = 4,
  parameter int unsigned BufBanks    = 0,
  localparam int unsigned InBits  = 78 + BeatBytes * 8,   // input vector
  localparam int unsigned OutBits = 173 + BeatBytes * 8   // output vector
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic sin_i,    // serial input
  input  logic shift_i,  // shift both chains by one bit
  input  logic upd_i,    // copy the input chain to the accelerator's inputs
  input  logic cap_i,    // capture the accelerator's outputs into the output chain
  output logic sout_o    // serial output (bit 0 of the output chain)
);

  logic [InBits-1:0]  in_q;  // the update register (the chains: mw_fpga_scan)
  logic [OutBits-1:0] outs;  // the wrapped design's outputs

  mw_fpga_scan #(
    .InBits  (InBits),
    .OutBits (OutBits)
  ) u_scan (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .sin_i   (sin_i),
    .shift_i (shift_i),
    .upd_i   (upd_i),
    .cap_i   (cap_i),
    .sout_o  (sout_o),
    .in_o    (in_q),
    .out_i   (outs)
  );

  mw_accel #(
    .Rows        (Rows),
    .Cols        (Cols),
    .InBufBytes  (InBufBytes),
    .WtBufBytes  (WtBufBytes),
    .AccBufWords (AccBufWords),
    .BeatBytes   (BeatBytes),
    .BufBanks    (BufBanks)
  ) u_accel (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .cmd_valid_i      (in_q[0]),
    .cmd_ready_o      (outs[0]),
    .cmd_data_i       (in_q[64:1]),
    .cmd_last_i       (in_q[65]),
    .dram_req_valid_o (outs[1]),
    .dram_req_write_o (outs[2]),
    .dram_req_bytes_o (outs[34:3]),
    .dram_req_addr_o  (outs[74:35]),
    .dram_req_id_o    (outs[106:75]),
    .dram_rd_valid_i  (in_q[66]),
    .dram_rd_last_i   (in_q[67]),
    .dram_rd_data_i   (in_q[68 +: BeatBytes*8]),
    .dram_wr_valid_o  (outs[107]),
    .dram_wr_ready_i  (in_q[68 + BeatBytes*8]),
    .dram_wr_data_o   (outs[108 +: BeatBytes*8]),
    .dram_wr_done_i   (in_q[69 + BeatBytes*8]),
    .csr_addr_i       (in_q[70 + BeatBytes*8 +: 8]),
    .csr_rdata_o      (outs[108 + BeatBytes*8 +: 64]),
    .idle_o           (outs[172 + BeatBytes*8])
  );

endmodule
