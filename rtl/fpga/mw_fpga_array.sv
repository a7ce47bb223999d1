// mw_fpga_array: the systolic array engine alone (mw_array: the PE mesh, its input skews, the
// output deskew and the fold control, with the parameters mw_compute gives it) behind the same
// seven-pin scan interface as mw_fpga (rtl/fpga/mw_fpga_scan.sv), for `mapwright synth --fpga ...
// --fpga-top array`: the datapath whose timing is the accelerator's systolic critical path,
// implemented on an FPGA too small for the whole accelerator (its control, DMA and buffers).
//
// What the wrapper adds, and all it adds: the scan chains of mw_fpga_scan (an input chain with
// an update register driving every input of mw_array, an output chain capturing every output).
// Their flops (2 x InBits + OutBits) and multiplexers are in the utilization the flow reports.
//
// Input vector, from bit 0: cmd_valid, cmd_os, cmd_n[NW-1:0], cmd_ru, cmd_cu, cmd_acc, a_valid,
// a_data, w_valid, w_data, c_valid, c_data, out_ready. Output vector, from bit 0: cmd_ready,
// a_ready, w_ready, c_ready, out_valid, out_data, out_last, busy, done, mac_cnt, busy_cnt,
// stall_cnt.
module mw_fpga_array #(
  parameter int unsigned Rows = 4,
  parameter int unsigned Cols = 4,
  localparam int unsigned OpW  = 8,   // mw_array's defaults, as mw_compute uses them
  localparam int unsigned AccW = 32,
  localparam int unsigned NW   = 24,  // mw_compute's NW
  localparam int unsigned CntW = 64,  // mw_compute's counters
  localparam int unsigned RW   = $clog2(Rows + 1),
  localparam int unsigned CW   = $clog2(Cols + 1),
  localparam int unsigned InBits  = 7 + NW + RW + CW + (Rows + Cols) * OpW + Cols * AccW,
  localparam int unsigned OutBits = 8 + Cols * AccW + 3 * CntW
) (
  input  logic clk_i,
  input  logic rst_ni,
  input  logic sin_i,    // serial input
  input  logic shift_i,  // shift both chains by one bit
  input  logic upd_i,    // copy the input chain to the array's inputs
  input  logic cap_i,    // capture the array's outputs into the output chain
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

  logic                 cmd_valid, cmd_os, cmd_acc, a_valid, w_valid, c_valid, out_ready;
  logic [NW-1:0]        cmd_n;
  logic [RW-1:0]        cmd_ru;
  logic [CW-1:0]        cmd_cu;
  logic [Rows*OpW-1:0]  a_data;
  logic [Cols*OpW-1:0]  w_data;
  logic [Cols*AccW-1:0] c_data, out_data;
  logic                 cmd_ready, a_ready, w_ready, c_ready, out_valid, out_last, busy, done;
  logic [CntW-1:0]      mac_cnt, busy_cnt, stall_cnt;

  assign {out_ready, c_data, c_valid, w_data, w_valid, a_data, a_valid, cmd_acc, cmd_cu, cmd_ru,
          cmd_n, cmd_os, cmd_valid} = in_q;
  assign outs = {stall_cnt, busy_cnt, mac_cnt, done, busy, out_last, out_data, out_valid,
                 c_ready, w_ready, a_ready, cmd_ready};

  mw_array #(
    .Rows (Rows),
    .Cols (Cols),
    .OpW  (OpW),
    .AccW (AccW),
    .NW   (NW),
    .CntW (CntW)
  ) u_array (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .cmd_valid_i (cmd_valid),
    .cmd_ready_o (cmd_ready),
    .cmd_os_i    (cmd_os),
    .cmd_n_i     (cmd_n),
    .cmd_ru_i    (cmd_ru),
    .cmd_cu_i    (cmd_cu),
    .cmd_acc_i   (cmd_acc),
    .a_valid_i   (a_valid),
    .a_ready_o   (a_ready),
    .a_data_i    (a_data),
    .w_valid_i   (w_valid),
    .w_ready_o   (w_ready),
    .w_data_i    (w_data),
    .c_valid_i   (c_valid),
    .c_ready_o   (c_ready),
    .c_data_i    (c_data),
    .out_valid_o (out_valid),
    .out_ready_i (out_ready),
    .out_data_o  (out_data),
    .out_last_o  (out_last),
    .busy_o      (busy),
    .done_o      (done),
    .mac_cnt_o   (mac_cnt),
    .busy_cnt_o  (busy_cnt),
    .stall_cnt_o (stall_cnt)
  );

endmodule
