// The banked accumulator of the default architecture (16x16 array, 16-byte DRAM beats, 64 KiB
// accumulator, 17 banks per set): mw_bank_buf with the parameters mw_buffers gives it, for
// tests/rtl/synth/bank_buf_dividers.cmake.
module bank_acc_top (
  input  logic            clk_i,
  input  logic            rst_ni,
  input  logic            rd_req_i,
  input  logic [15:0]     rd_en_i,
  input  logic [16*14-1:0] rd_addr_i,
  output logic            rd_gnt_o,
  output logic            rd_valid_o,
  output logic [16*32-1:0] rd_data_o,
  input  logic            wr_req_i,
  input  logic [15:0]     wr_en_i,
  input  logic [16*14-1:0] wr_addr_i,
  input  logic [16*32-1:0] wr_data_i,
  output logic            wr_gnt_o,
  input  logic            drd_req_i,
  input  logic [15:0]     drd_en_i,
  input  logic [16*14-1:0] drd_addr_i,
  output logic [16*32-1:0] drd_data_o,
  input  logic [3:0]      dwr_en_i,
  input  logic [4*14-1:0] dwr_addr_i,
  input  logic [4*32-1:0] dwr_data_i,
  output logic [63:0]     rd_stall_cnt_o,
  output logic [63:0]     wr_stall_cnt_o
);
  mw_bank_buf #(
    .Depth    (16384),
    .Width    (32),
    .Banks    (17),
    .RdPorts  (16),
    .WrPorts  (16),
    .WrDirect (1),
    .Sets     (2),
    .SetSplit (8192),
    .DRdPorts (16),
    .DWrPorts (4)
  ) u_buf (.*);
endmodule
