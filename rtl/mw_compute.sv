// mw_compute: the compute controller: turns one compute command (a tile-program step) into the
// folds of the tile's GEMM on the mw_array fold engine, generating the operand streams from the
// buffers and doing the accumulator read-modify-write.
//
// Command (entry = words {w4, w3, w2, w1, w0}, see rtl/README.md): tile extents g n p q c r s k,
// buffer bases, and the input tile's geometry (distinct rows Hx / columns Wx held in the input
// buffer and the rows / columns clipped at the low edge). The controller iterates the folds in
// core::for_each_fold's order (groups outermost, then rows/cols of the fold grid in the
// configured fold order, pe_rows x pe_cols per fold) and issues one mw_array command per fold.
// A command's first fold is issued when the completed-DMA count (including a DMA completing in
// this cycle) has reached wait_dma and the completed-compute count wait_cmp; later folds follow
// back to back, and so does the next command's first fold when its fences are met, because the
// next fold is issued in the cycle the previous one's last result row is taken.
//
// The fold sequencer and address generator (mw_fold_seq) holds the buffer layouts and the
// per-fold address set-up; this module issues the folds, forms each lane's address from its
// registers (one add per lane and cycle) and moves the operand and result rows.
// Dataflows: WS and IS fold the reduction (r, s, c) over the mesh rows; OS folds the output
// pixels (n, p, q) there. The mesh columns carry K (WS, OS) or the output pixels (IS). IS runs
// the fold engine in its stationary mode with the input tile in the weights' place: the `w`
// stream preloads, per reduction row, the fold's cu input pixels (input buffer, column lanes),
// the `a` stream carries one row of ru weights per output channel k (weight buffer, row lanes),
// and result row k holds out[k][pixels], written to the accumulator at [m][g][k] like the others.
// The input and weight buffers therefore have max(Rows, Cols) read lanes.
// Operand reads are combinational from the buffers; accumulator writes are registered.
module mw_compute #(
  parameter int unsigned Rows  = 4,
  parameter int unsigned Cols  = 4,
  parameter int unsigned InAW  = 16,  // input buffer address width (bytes)
  parameter int unsigned WtAW  = 16,  // weight buffer address width (bytes)
  parameter int unsigned AccAW = 12,  // accumulator address width (words)
  parameter int unsigned NW    = 24,  // width of a fold's streamed length
  parameter bit          Banked = 1'b0,  // input / weight buffers are mw_bank_buf (registered)
  parameter int unsigned Banks  = 17,    // their banks (Banked), for padding lanes' banks
  localparam int unsigned RW   = $clog2(Rows + 1),
  localparam int unsigned CW   = $clog2(Cols + 1),
  localparam int unsigned NL   = (Rows > Cols) ? Rows : Cols  // input / weight read lanes
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  // Compute queue head.
  input  logic                          cmd_valid_i,
  input  logic [319:0]                  cmd_i,
  output logic                          cmd_pop_o,

  // Configuration (per layer) and fences.
  input  logic                          os_i,          // 1: output-stationary
  input  logic                          is_i,          // 1: input-stationary (never with os_i)
  input  logic                          cols_outer_i,  // fold order: 1 = cols outer
  input  logic [15:0]                   pe_rows_i,     // rows a fold may use, 1..Rows
  input  logic [15:0]                   pe_cols_i,     // columns a fold may use, 1..Cols
  input  logic [15:0]                   stride_i,      // layer stride
  input  logic [27:0]                   dma_done_i,    // completed DMA commands (registered)
  output logic [27:0]                   done_cnt_o,    // completed compute commands
  output logic                          done_now_o,    // a compute command completes this cycle
  output logic                          busy_o,        // a fold is in flight

  // Buffer ports. Banked: a row of lane reads is requested (rd_req, the lanes in rd_en) and
  // held until granted (rd_gnt); its data comes with rd_valid in the next cycle. Otherwise the
  // data follows the address in the same cycle and the request signals are unused.
  output logic [NL*InAW-1:0]            in_rd_addr_o,
  input  logic [NL*8-1:0]               in_rd_data_i,
  output logic                          in_rd_req_o,
  output logic [NL-1:0]                 in_rd_en_o,
  input  logic                          in_rd_gnt_i,
  input  logic                          in_rd_valid_i,
  output logic [NL*WtAW-1:0]            wt_rd_addr_o,
  input  logic [NL*8-1:0]               wt_rd_data_i,
  output logic                          wt_rd_req_o,
  output logic [NL-1:0]                 wt_rd_en_o,
  input  logic                          wt_rd_gnt_i,
  input  logic                          wt_rd_valid_i,
  // Accumulator. Banked: the accumulate-in rows are read like the operand rows (acc_rd_req,
  // acc_rd_en, acc_rd_gnt, acc_rd_valid); a result row is written in its cycle (acc_wr_req):
  // the buffer serves it without arbitration (acc_wr_gnt, checked by acc_wr_at_once_a), so the
  // mesh never waits for it.
  output logic [Cols*AccAW-1:0]         acc_rd_addr_o,
  input  logic [Cols*32-1:0]            acc_rd_data_i,
  output logic                          acc_rd_req_o,
  output logic [Cols-1:0]               acc_rd_en_o,
  input  logic                          acc_rd_gnt_i,
  input  logic                          acc_rd_valid_i,
  output logic [Cols-1:0]               acc_wr_en_o,
  output logic [Cols*AccAW-1:0]         acc_wr_addr_o,
  output logic [Cols*32-1:0]            acc_wr_data_o,
  output logic                          acc_wr_req_o,
  input  logic                          acc_wr_gnt_i,

  // Counters (from reset): 0 MACs, 1 folds, 2 input reads, 3 weight reads, 4 accumulator reads,
  // 5 accumulator writes, 6 array busy cycles, 7 array stall cycles.
  output logic [8*64-1:0]               cnt_o,
  output logic                          err_o          // sticky: a malformed command
);

  // -------------------------------------------------------------------------------------------
  // Fold issue
  // -------------------------------------------------------------------------------------------
  logic [27:0] h_wait_dma, h_wait_cmp;
  logic        arr_cmd_valid, arr_cmd_ready, issue;
  logic [27:0] done_q;
  logic        fin;
  logic        act_q;  // a fold is in flight
  assign h_wait_dma    = cmd_i[35:8];
  assign h_wait_cmp    = cmd_i[63:36];
  assign arr_cmd_valid = cmd_valid_i && (dma_done_i >= h_wait_dma) && (done_q >= h_wait_cmp);
  assign issue         = arr_cmd_valid && arr_cmd_ready;

  // -------------------------------------------------------------------------------------------
  // Fold sequencer: the head command's folds and the active fold's address registers
  // -------------------------------------------------------------------------------------------
  // Per input read lane: its part of the input address and of the buffer row / column (the
  // low-edge clip folded in). The streamed position adds the rest, so a lane's address is one
  // add and its padding test two adds and compares. Per weight / accumulator lane: its offset
  // from the lane-0 address (j, or j * tk under IS). The *_q names are u_seq's registers.
  logic [31:0]      h_m, h_red, f_ru, f_cu;
  logic [15:0]      h_tk;
  logic             f_acc, last_fold, bad_cmd;
  logic             a_last_q;            // the fold is its command's last
  logic [31:0]      a_ru_q, a_cu_q;
  logic [NL*32-1:0] a_lin_q, a_lh_q, a_lw_q, a_lk_q, a_la_q;
  logic [15:0]      a_hx_q, a_wx_q;
  logic [31:0]      s_h, s_w;            // streamed position's buffer row / column partials
  logic [31:0]      s_addr_q;            // input lane-0 address
  logic [31:0]      w_addr_q;            // weight lane-0 address
  logic [31:0]      c_addr_q, o_addr_q;  // accumulate-in / result lane-0 addresses
  logic             s_fire, w_adv, c_adv, o_fire;

  mw_fold_seq #(
    .Rows (Rows),
    .Cols (Cols)
  ) u_seq (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .cmd_i        (cmd_i),
    .os_i         (os_i),
    .is_i         (is_i),
    .cols_outer_i (cols_outer_i),
    .pe_rows_i    (pe_rows_i),
    .pe_cols_i    (pe_cols_i),
    .stride_i     (stride_i),
    .h_m_o        (h_m),
    .h_red_o      (h_red),
    .h_tk_o       (h_tk),
    .f_ru_o       (f_ru),
    .f_cu_o       (f_cu),
    .f_acc_o      (f_acc),
    .last_fold_o  (last_fold),
    .bad_o        (bad_cmd),
    .issue_i      (issue),
    .s_adv_i      (s_fire),
    .w_adv_i      (w_adv),
    .c_adv_i      (c_adv),
    .o_adv_i      (o_fire),
    .a_last_o     (a_last_q),
    .a_ru_o       (a_ru_q),
    .a_cu_o       (a_cu_q),
    .a_lin_o      (a_lin_q),
    .a_lh_o       (a_lh_q),
    .a_lw_o       (a_lw_q),
    .a_lk_o       (a_lk_q),
    .a_la_o       (a_la_q),
    .a_hx_o       (a_hx_q),
    .a_wx_o       (a_wx_q),
    .s_h_o        (s_h),
    .s_w_o        (s_w),
    .s_addr_o     (s_addr_q),
    .w_addr_o     (w_addr_q),
    .c_addr_o     (c_addr_q),
    .o_addr_o     (o_addr_q)
  );

  // -------------------------------------------------------------------------------------------
  // Fold engine
  // -------------------------------------------------------------------------------------------
  logic                  a_ready, w_ready, c_ready, out_valid, out_last;
  logic                  a_valid, w_valid, c_valid, out_ready;
  logic [Rows*8-1:0]     a_data;
  logic [Cols*8-1:0]     w_data;
  logic [Cols*32-1:0]    c_data, out_data;
  logic [63:0]           mac_cnt, busy_cnt, stall_cnt;
  logic                  arr_busy, arr_done;

  mw_array #(
    .Rows (Rows),
    .Cols (Cols),
    .NW   (NW),
    .CntW (64)
  ) u_array (
    .clk_i       (clk_i),
    .rst_ni      (rst_ni),
    .cmd_valid_i (arr_cmd_valid),
    .cmd_ready_o (arr_cmd_ready),
    .cmd_os_i    (os_i),
    .cmd_n_i     (NW'(os_i ? h_red : (is_i ? 32'(h_tk) : h_m))),
    .cmd_ru_i    (RW'(f_ru)),
    .cmd_cu_i    (CW'(f_cu)),
    .cmd_acc_i   (f_acc),
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
    .busy_o      (arr_busy),
    .done_o      (arr_done),
    .mac_cnt_o   (mac_cnt),
    .busy_cnt_o  (busy_cnt),
    .stall_cnt_o (stall_cnt)
  );

  assign fin = out_valid && out_ready && out_last && a_last_q;

  // -------------------------------------------------------------------------------------------
  // Operand addresses: one add per lane from registered values
  // -------------------------------------------------------------------------------------------
  // The bank of a virtual address (floor modulo Banks of a 32-bit signed value) without a 32-bit
  // divider, which a synthesis tool would build per lane (16 of them were a tenth of the banked
  // 16x16 design's logic; docs/synthesis.md): the address's four bytes, weighted by 2^(8j) mod
  // Banks, sum to less than 2^17 with the same residue as its unsigned reading, and a negative
  // address is 2^32 less than that reading, so it adds Banks - (2^32 mod Banks). One 17-bit
  // modulo remains. tests/rtl/bank_floor_mod_test.cpp checks it against the floor modulo.
  localparam int unsigned BankR8  = 32'((64'd1 << 8) % 64'(Banks));
  localparam int unsigned BankR16 = 32'((64'd1 << 16) % 64'(Banks));
  localparam int unsigned BankR24 = 32'((64'd1 << 24) % 64'(Banks));
  localparam int unsigned BankNeg = 32'((64'(Banks) - (64'd1 << 32) % 64'(Banks)) % 64'(Banks));
  function automatic logic [7:0] bank_floor_mod(input logic signed [31:0] v);
    logic [16:0] sum;
    sum = 17'(v[7:0]) + 17'(v[15:8]) * 17'(BankR8) + 17'(v[23:16]) * 17'(BankR16) +
          17'(v[31:24]) * 17'(BankR24) + (v[31] ? 17'(BankNeg) : 17'd0);
    bank_floor_mod = 8'(sum % 17'(Banks));
  endfunction
  // Input read lanes: WS / OS lane i streams activation row lane i (its reduction or pixel
  // part plus the streamed position's other part); IS lane j preloads input pixel j of the fold
  // at the reduction index of the current `w` row. A lane whose buffer row or column falls
  // outside [0, Hx) / [0, Wx) is padding: it streams zero, but the read is counted like every
  // streamed activation. A lane in use is enabled (in_rd_en_o; banked, a padding lane takes
  // its bank too).
  logic [NL-1:0] lane_ok;  // lane in use and not padding
  always_comb begin
    for (int unsigned i = 0; i < NL; i++) begin
      logic signed [31:0] hrow, wcol, virt;
      logic [7:0] vb;
      hrow       = $signed(s_h + a_lh_q[i*32 +: 32]);
      wcol       = $signed(s_w + a_lw_q[i*32 +: 32]);
      in_rd_en_o[i] = (i < (is_i ? a_cu_q : a_ru_q));
      lane_ok[i] = in_rd_en_o[i] && (hrow >= 0) && (hrow < $signed(32'(a_hx_q))) && (wcol >= 0) &&
                   (wcol < $signed(32'(a_wx_q)));
      virt       = $signed(s_addr_q + a_lin_q[i*32 +: 32]);
      // Banked: a padding lane reads word 0 of the bank its virtual address falls into (floor
      // modulo), so that every row of a fold has the same bank conflicts; its word is dropped.
      vb         = bank_floor_mod(virt);
      if (lane_ok[i]) begin
        in_rd_addr_o[i*InAW +: InAW] = InAW'(virt);
      end else if (Banked && in_rd_en_o[i]) begin
        in_rd_addr_o[i*InAW +: InAW] = InAW'(vb);
      end else begin
        in_rd_addr_o[i*InAW +: InAW] = '0;
      end
    end
  end

  // Banked buffers: one row fetch per buffer (mw_row_fetch) requests the fold's rows one at a
  // time, holds a granted row until the mesh takes it and zeroes the input row's padding lanes
  // (the mask taken at the grant). The position registers advance at the grant. A fold's first
  // row is requested in the cycle after its issue. The requests are the *_rd_req_o ports, the
  // accumulate-in row's lanes in use acc_rd_en_o and its offer c_valid.
  logic                in_v, wt_v;
  logic [NL*8-1:0]     in_row, wt_row;          // the row offered to the mesh
  logic [Cols*32-1:0]    acc_row;               // the accumulate-in row offered to the mesh
  if (Banked) begin : gen_fetch
    logic in_take, wt_take;  // the mesh takes the offered input / weight row
    assign in_take = is_i ? w_fire : a_fire;
    assign wt_take = is_i ? a_fire : w_fire;
    // Rows of the fold per buffer: the input buffer feeds `a` (WS: a row per pixel; OS: per
    // reduction index) or the IS preload (ru rows); the weight buffer the WS preload (ru
    // rows), the OS `w` stream (a row per reduction index) or the IS `a` stream (tk rows).
    mw_row_fetch #(
      .Lanes (NL)
    ) u_in_fetch (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .act_i      (act_q),
      .issue_i    (issue),
      .rows_i     (is_i ? f_ru : (os_i ? h_red : h_m)),
      .take_i     (in_take),
      .mask_i     (lane_ok),
      .gnt_i      (in_rd_gnt_i),
      .rd_valid_i (in_rd_valid_i),
      .rd_data_i  (in_rd_data_i),
      .ask_o      (in_rd_req_o),
      .valid_o    (in_v),
      .row_o      (in_row)
    );
    mw_row_fetch #(
      .Lanes (NL)
    ) u_wt_fetch (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .act_i      (act_q),
      .issue_i    (issue),
      .rows_i     (is_i ? 32'(h_tk) : (os_i ? h_red : f_ru)),
      .take_i     (wt_take),
      .mask_i     ('1),
      .gnt_i      (wt_rd_gnt_i),
      .rd_valid_i (wt_rd_valid_i),
      .rd_data_i  (wt_rd_data_i),
      .ask_o      (wt_rd_req_o),
      .valid_o    (wt_v),
      .row_o      (wt_row)
    );
    // Accumulate-in rows (folds that accumulate): one per result row, i.e. per streamed row
    // (WS, IS) or per mesh row in use (OS). The first is requested in the cycle after the
    // issue, after the previous fold's last result row was written, and arrives before the
    // fold forms its first row (at least two cycles after the issue), so it adds no cycle.
    mw_row_fetch #(
      .Lanes (Cols),
      .Width (32)
    ) u_acc_fetch (
      .clk_i      (clk_i),
      .rst_ni     (rst_ni),
      .act_i      (act_q),
      .issue_i    (issue),
      .rows_i     (f_acc ? (os_i ? f_ru : (is_i ? 32'(h_tk) : h_m)) : 32'd0),
      .take_i     (c_ready && c_valid),
      .mask_i     (acc_rd_en_o),
      .gnt_i      (acc_rd_gnt_i),
      .rd_valid_i (acc_rd_valid_i),
      .rd_data_i  (acc_rd_data_i),
      .ask_o      (acc_rd_req_o),
      .valid_o    (c_valid),
      .row_o      (acc_row)
    );
    // A result row leaves in its cycle: the accumulator serves the compute's write row
    // without arbitration (its lanes, consecutive words or a stride the driver checked, fall
    // into distinct banks). No path runs from the row's addresses to the mesh's advance.
    assign out_ready = 1'b1;
    `ifndef SYNTHESIS
    acc_wr_at_once_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        acc_wr_req_o |-> acc_wr_gnt_i);
    `endif
  end else begin : gen_no_fetch
    // Multi-ported buffers: data follows the address in the same cycle; the input row's
    // padding lanes are zeroed by this cycle's lane mask. No request, grant or read valid.
    logic unused_rd;
    assign unused_rd = ^{in_rd_valid_i, wt_rd_valid_i};
    assign in_rd_req_o = 1'b0;
    assign wt_rd_req_o = 1'b0;
    assign in_v      = 1'b1;
    assign wt_v      = 1'b1;
    for (genvar i = 0; i < NL; i++) begin : gen_lane
      assign in_row[i*8 +: 8] = lane_ok[i] ? in_rd_data_i[i*8 +: 8] : 8'd0;
    end
    assign wt_row = wt_rd_data_i;
    assign acc_rd_req_o = 1'b0;
    assign c_valid      = 1'b1;
    assign acc_row   = acc_rd_data_i;
    assign out_ready = 1'b1;
    logic unused_acc;
    assign unused_acc = ^{acc_rd_gnt_i, acc_rd_valid_i, acc_wr_gnt_i};
  end
  assign acc_wr_req_o = Banked && out_valid;
  assign a_valid     = is_i ? wt_v : in_v;
  assign w_valid     = is_i ? in_v : wt_v;

  // Operand data: padding and unused lanes stream zero.
  always_comb begin
    for (int unsigned i = 0; i < Rows; i++) begin
      if (is_i) begin
        a_data[i*8 +: 8] = (i < a_ru_q) ? wt_row[i*8 +: 8] : 8'd0;
      end else begin
        a_data[i*8 +: 8] = in_row[i*8 +: 8];
      end
    end
    for (int unsigned j = 0; j < Cols; j++) begin
      w_data[j*8 +: 8] = is_i ? in_row[j*8 +: 8] : wt_row[j*8 +: 8];
    end
  end

  // Weights: WS lane j reads row (row0 + w rows taken) at column c0 + j; OS row (a rows
  // taken) at c0 + j; IS reduction row row0 + j at column k = a rows taken. Accumulator: row
  // (pixel) m at column c0 + j (WS, OS), or pixel c0 + j at column k (IS).
  always_comb begin
    for (int unsigned j = 0; j < NL; j++) begin
      wt_rd_en_o[j]   = (j < (is_i ? a_ru_q : a_cu_q));
      wt_rd_addr_o[j*WtAW +: WtAW] = wt_rd_en_o[j] ? WtAW'(w_addr_q + a_lk_q[j*32 +: 32]) : '0;
    end
    for (int unsigned j = 0; j < Cols; j++) begin
      acc_rd_en_o[j]     = (j < a_cu_q);
      acc_rd_addr_o[j*AccAW +: AccAW]   =
          acc_rd_en_o[j] ? AccAW'(c_addr_q + a_la_q[j*32 +: 32]) : '0;
      acc_wr_addr_o[j*AccAW +: AccAW]   = AccAW'(o_addr_q + a_la_q[j*32 +: 32]);
      c_data[j*32 +: 32] = acc_row[j*32 +: 32];
      acc_wr_data_o[j*32 +: 32]   = out_data[j*32 +: 32];
      acc_wr_en_o[j]     = out_valid && (j < a_cu_q);
    end
  end

  // -------------------------------------------------------------------------------------------
  // Stream counters, completion, counters
  // -------------------------------------------------------------------------------------------
  logic       a_fire, w_fire, c_fire;
  logic [8*64-1:0]  cnt_q;
  logic       err_q;
  assign a_fire = a_valid && a_ready;
  assign w_fire = w_valid && w_ready;
  assign c_fire = c_ready && c_valid;
  // Banked: the accumulate-in address advances at the grant of its row's read, the result
  // address when the result row is written.
  assign c_adv  = Banked ? (acc_rd_req_o && acc_rd_gnt_i) : c_fire;
  assign o_fire = out_valid && out_ready;
  // The streamed input index advances when its row is taken (banked: granted).
  assign s_fire = Banked ? (in_rd_req_o && in_rd_gnt_i) : (is_i ? w_fire : a_fire);
  // The weight row advances with the `w` stream (WS) or the `a` stream (OS, IS); banked: at
  // the grant of its read.
  assign w_adv  = Banked ? (wt_rd_req_o && wt_rd_gnt_i) : (os_i || is_i ? a_fire : w_fire);

  // Every buffer address a lane uses fits the buffer's address width before it is truncated to
  // the port (simulation only, kept with --assert): the driver checks the mapping's capacity,
  // so a violation is an address-generation error that truncation would otherwise hide.
  `ifndef SYNTHESIS
  for (genvar i = 0; i < NL; i++) begin : gen_rd_range
    in_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (act_q && s_fire && lane_ok[i]) |-> ((s_addr_q + a_lin_q[i*32 +: 32]) >> InAW) == '0);
    wt_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (act_q && (Banked ? wt_rd_req_o : (is_i ? a_fire : w_fire)) &&
         (32'(i) < (is_i ? a_ru_q : a_cu_q))) |->
        ((w_addr_q + a_lk_q[i*32 +: 32]) >> WtAW) == '0);
  end
  for (genvar j = 0; j < Cols; j++) begin : gen_acc_range
    acc_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (act_q && (Banked ? acc_rd_req_o : c_fire) && (32'(j) < a_cu_q)) |->
        ((c_addr_q + a_la_q[j*32 +: 32]) >> AccAW) == '0);
    acc_wr_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        acc_wr_en_o[j] |-> ((o_addr_q + a_la_q[j*32 +: 32]) >> AccAW) == '0);
  end
  `endif

  // Next state written in the clocked block: it runs once per rising edge and only under its
  // enables. Issue depends on registers only (the DMA completion count is registered).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      act_q    <= 1'b0;
      done_q   <= '0;
      err_q    <= 1'b0;
      cnt_q    <= '0;
    end else begin
      if (issue) begin
        act_q <= 1'b1;
        if (bad_cmd) begin
          err_q <= 1'b1;
        end
      end else if (o_fire && out_last) begin
        act_q <= 1'b0;
      end
      if (fin) begin
        done_q <= done_q + 28'd1;
      end

      // Counters.
      cnt_q[0 +: 64] <= mac_cnt;
      if (issue) begin
        cnt_q[64 +: 64] <= cnt_q[64 +: 64] + 64'd1;
      end
      // Input reads: the activation stream (WS, OS) or the preload (IS); weight reads the
      // other one.
      if (is_i ? w_fire : a_fire) begin
        cnt_q[128 +: 64] <= cnt_q[128 +: 64] + (is_i ? 64'(a_cu_q) : 64'(a_ru_q));
      end
      if (is_i ? a_fire : w_fire) begin
        cnt_q[192 +: 64] <= cnt_q[192 +: 64] + (is_i ? 64'(a_ru_q) : 64'(a_cu_q));
      end
      if (c_fire) begin
        cnt_q[256 +: 64] <= cnt_q[256 +: 64] + 64'(a_cu_q);
      end
      if (o_fire) begin
        cnt_q[320 +: 64] <= cnt_q[320 +: 64] + 64'(a_cu_q);
      end
      cnt_q[384 +: 64] <= busy_cnt;
      cnt_q[448 +: 64] <= stall_cnt;
    end
  end

  assign cmd_pop_o  = issue && last_fold;
  assign done_cnt_o = done_q;
  assign done_now_o = fin;
  assign busy_o     = act_q || arr_busy;
  assign cnt_o      = cnt_q;
  assign err_o      = err_q;

  // f_ru / f_cu beyond the array's RW / CW bits feed only the banked row fetches.
  logic unused_bits;
  assign unused_bits = ^{arr_done, f_ru, f_cu};

endmodule
