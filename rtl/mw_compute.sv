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
// Buffer layouts (one tile, per half): input [g][n][hrow][wcol][c] over the tile's distinct
// in-bounds rows and columns; weights [g][red][k] with red = (r, s, c), c fastest; accumulator
// [g][m][k] with m = (n, p, q), q fastest. The buffer row of output row pl and filter row rl is
// hrow = pl*A + rl - clip_h with A = stride if (rt >= stride or pt == 1) else rt; a position
// whose hrow (or wcol) falls outside [0, Hx) (or [0, Wx)) is padding: its lane streams zero, but
// the read is counted like every streamed activation.
// Dataflows: WS and IS fold the reduction (r, s, c) over the mesh rows; OS folds the output
// pixels (n, p, q) there. The mesh columns carry K (WS, OS) or the output pixels (IS). IS runs
// the fold engine in its stationary mode with the input tile in the weights' place: the `w`
// stream preloads, per reduction row, the fold's cu input pixels (input buffer, column lanes),
// the `a` stream carries one row of ru weights per output channel k (weight buffer, row lanes),
// and result row k holds out[k][pixels], written to the accumulator at [g][m][k] like the others.
// The input and weight buffers therefore have max(Rows, Cols) read lanes.
// Lane decode: fold lanes are consecutive reduction indices (WS, IS rows), output pixels (OS
// rows, IS columns); their (r, s, c) or (n, p, q) digits come from chains of mixed-radix
// incrementers started at the fold's first row (column), so no divider is needed. Operand reads
// are combinational from the buffers; accumulator writes are registered.
module mw_compute #(
  parameter int unsigned Rows  = 4,
  parameter int unsigned Cols  = 4,
  parameter int unsigned InAW  = 16,  // input buffer address width (bytes)
  parameter int unsigned WtAW  = 16,  // weight buffer address width (bytes)
  parameter int unsigned AccAW = 12,  // accumulator address width (words)
  parameter int unsigned NW    = 24,  // width of a fold's streamed length
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
  input  logic [27:0]                   dma_done_i,    // completed DMA commands, this cycle's too
  output logic [27:0]                   done_cnt_o,    // completed compute commands
  output logic                          done_now_o,    // a compute command completes this cycle
  output logic                          busy_o,        // a fold is in flight

  // Buffer ports.
  output logic [NL-1:0][InAW-1:0]       in_rd_addr_o,
  input  logic [NL-1:0][7:0]            in_rd_data_i,
  output logic [NL-1:0][WtAW-1:0]       wt_rd_addr_o,
  input  logic [NL-1:0][7:0]            wt_rd_data_i,
  output logic [Cols-1:0][AccAW-1:0]    acc_rd_addr_o,
  input  logic [Cols-1:0][31:0]         acc_rd_data_i,
  output logic [Cols-1:0]               acc_wr_en_o,
  output logic [Cols-1:0][AccAW-1:0]    acc_wr_addr_o,
  output logic [Cols-1:0][31:0]         acc_wr_data_o,

  // Counters (from reset): 0 MACs, 1 folds, 2 input reads, 3 weight reads, 4 accumulator reads,
  // 5 accumulator writes, 6 array busy cycles, 7 array stall cycles.
  output logic [7:0][63:0]              cnt_o,
  output logic                          err_o          // sticky: a malformed command
);

  localparam logic [3:0] OpCompute = 4'd7;

  // -------------------------------------------------------------------------------------------
  // Head command fields and derived sizes
  // -------------------------------------------------------------------------------------------
  logic [3:0]  h_op;
  logic        h_accum;
  logic [27:0] h_wait_dma, h_wait_cmp;
  logic [15:0] h_tg, h_tn, h_tp, h_tq, h_tc, h_tr, h_ts, h_tk;
  logic [31:0] h_m, h_red, h_rows, h_kc;
  assign h_op       = cmd_i[3:0];
  assign h_accum    = cmd_i[4];
  assign h_wait_dma = cmd_i[35:8];
  assign h_wait_cmp = cmd_i[63:36];
  assign h_tg       = cmd_i[79:64];
  assign h_tn       = cmd_i[95:80];
  assign h_tp       = cmd_i[111:96];
  assign h_tq       = cmd_i[127:112];
  assign h_tc       = cmd_i[143:128];
  assign h_tr       = cmd_i[159:144];
  assign h_ts       = cmd_i[175:160];
  assign h_tk       = cmd_i[191:176];
  assign h_m        = 32'(h_tn) * 32'(h_tp) * 32'(h_tq);
  assign h_red      = 32'(h_tc) * 32'(h_tr) * 32'(h_ts);
  assign h_rows     = os_i ? h_m : h_red;
  assign h_kc       = is_i ? h_m : 32'(h_tk);

  // Lane digit radices (slowest first): WS lanes are reduction indices (r, s, c), OS lanes are
  // output pixels (n, p, q); the streamed index uses the other triple.
  logic [2:0][15:0] lane_rad;
  assign lane_rad = os_i ? {h_tq, h_tp, h_tn} : {h_tc, h_ts, h_tr};

  // -------------------------------------------------------------------------------------------
  // Fold iterator of the head command
  // -------------------------------------------------------------------------------------------
  logic [15:0]       it_g_q;
  logic [31:0]       it_row0_q, it_c0_q;
  logic [2:0][15:0]  it_dig_q;             // digits of row0 ([0] slowest)
  logic [2:0][15:0]  it_cdig_q;            // IS: pixel digits of c0 ([0] slowest)

  // Mixed-radix increment of a digit triple ([0] slowest; the slowest digit never wraps).
  function automatic logic [2:0][15:0] inc3(logic [2:0][15:0] d, logic [15:0] rad1,
                                             logic [15:0] rad2);
    inc3 = d;
    if (d[2] + 16'd1 < rad2) begin
      inc3[2] = d[2] + 16'd1;
    end else begin
      inc3[2] = '0;
      if (d[1] + 16'd1 < rad1) begin
        inc3[1] = d[1] + 16'd1;
      end else begin
        inc3[1] = '0;
        inc3[0] = d[0] + 16'd1;
      end
    end
  endfunction

  // Chains of increments: lane[i] = digits of row0 + i, clane[j] = (IS) pixel digits of
  // c0 + j (one stage per generate block, so a chain is not a combinational loop on one
  // variable). Both run to NL so every read lane has digits; lanes past the fold are unused.
  logic [2:0][15:0] lane [NL+1];
  logic [2:0][15:0] clane [NL+1];
  for (genvar i = 0; i <= NL; i++) begin : gen_lane
    logic [2:0][15:0] d, cd;
    if (i == 0) begin : gen_first
      assign d  = it_dig_q;
      assign cd = it_cdig_q;
    end else begin : gen_next
      assign d  = inc3(gen_lane[i-1].d, lane_rad[1], lane_rad[2]);
      assign cd = inc3(gen_lane[i-1].cd, h_tp, h_tq);
    end
    assign lane[i]  = d;
    assign clane[i] = cd;
  end

  logic [31:0] pr, pc, f_ru, f_cu;
  logic [2:0][15:0] lane_ru;  // digits of row0 + ru: the next row fold's first row
  logic [2:0][15:0] clane_cu; // IS: pixel digits of c0 + cu: the next column fold's first
  always_comb begin
    lane_ru  = '0;
    clane_cu = '0;
    for (int unsigned i = 1; i <= Rows; i++) begin
      if (f_ru == i) begin
        lane_ru = lane[i];
      end
    end
    for (int unsigned j = 1; j <= Cols; j++) begin
      if (f_cu == j) begin
        clane_cu = clane[j];
      end
    end
  end
  logic        last_row, last_col, last_fold;
  assign pr        = 32'(pe_rows_i);
  assign pc        = 32'(pe_cols_i);
  assign f_ru      = (h_rows - it_row0_q < pr) ? h_rows - it_row0_q : pr;
  assign f_cu      = (h_kc - it_c0_q < pc) ? h_kc - it_c0_q : pc;
  assign last_row  = (it_row0_q + pr >= h_rows);
  assign last_col  = (it_c0_q + pc >= h_kc);
  assign last_fold = last_row && last_col && (it_g_q + 16'd1 >= h_tg);

  // -------------------------------------------------------------------------------------------
  // Fold issue
  // -------------------------------------------------------------------------------------------
  logic        arr_cmd_valid, arr_cmd_ready, issue;
  logic        f_acc;
  logic [27:0] done_q;
  logic        fin;

  assign arr_cmd_valid = cmd_valid_i && (dma_done_i >= h_wait_dma) && (done_q >= h_wait_cmp);
  assign issue         = arr_cmd_valid && arr_cmd_ready;
  // WS: only the first reduction fold of a fresh tile overwrites; OS: the whole fresh step.
  assign f_acc         = os_i ? h_accum : (h_accum || (it_row0_q != '0));

  // The fold iterator's next state is written in the clocked block at the end of the module.

  // -------------------------------------------------------------------------------------------
  // Active fold: copied from the head at issue, used by the operand and result streams
  // -------------------------------------------------------------------------------------------
  logic              act_q;                 // a fold is in flight
  logic              a_last_q;              // the fold is its command's last
  logic [31:0]       a_ru_q, a_cu_q, a_g_q, a_row0_q, a_c0_q;
  logic [15:0]       a_tn_q, a_tp_q, a_tq_q, a_tc_q, a_tr_q, a_ts_q, a_tk_q;
  logic [31:0]       a_m_q, a_red_q;
  logic [19:0]       a_in_base_q, a_wt_base_q, a_acc_base_q;
  logic [15:0]       a_hx_q, a_wx_q, a_clip_h_q, a_clip_w_q, a_ah_q, a_aw_q;
  logic [NL-1:0][2:0][15:0] a_lane_q, a_clane_q;
  logic [15:0]       ah_new, aw_new;

  assign ah_new = ((h_tr >= stride_i) || (h_tp == 16'd1)) ? stride_i : h_tr;
  assign aw_new = ((h_ts >= stride_i) || (h_tq == 16'd1)) ? stride_i : h_ts;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      a_last_q     <= 1'b0;
      a_ru_q       <= '0;
      a_cu_q       <= '0;
      a_g_q        <= '0;
      a_row0_q     <= '0;
      a_c0_q       <= '0;
      a_tn_q       <= '0;
      a_tp_q       <= '0;
      a_tq_q       <= '0;
      a_tc_q       <= '0;
      a_tr_q       <= '0;
      a_ts_q       <= '0;
      a_tk_q       <= '0;
      a_m_q        <= '0;
      a_red_q      <= '0;
      a_in_base_q  <= '0;
      a_wt_base_q  <= '0;
      a_acc_base_q <= '0;
      a_hx_q       <= '0;
      a_wx_q       <= '0;
      a_clip_h_q   <= '0;
      a_clip_w_q   <= '0;
      a_ah_q       <= '0;
      a_aw_q       <= '0;
      a_lane_q     <= '0;
      a_clane_q    <= '0;
    end else if (issue) begin
      a_last_q     <= last_fold;
      a_ru_q       <= f_ru;
      a_cu_q       <= f_cu;
      a_g_q        <= 32'(it_g_q);
      a_row0_q     <= it_row0_q;
      a_c0_q       <= it_c0_q;
      a_tn_q       <= h_tn;
      a_tp_q       <= h_tp;
      a_tq_q       <= h_tq;
      a_tc_q       <= h_tc;
      a_tr_q       <= h_tr;
      a_ts_q       <= h_ts;
      a_tk_q       <= h_tk;
      a_m_q        <= h_m;
      a_red_q      <= h_red;
      a_in_base_q  <= cmd_i[211:192];
      a_wt_base_q  <= cmd_i[231:212];
      a_acc_base_q <= cmd_i[251:232];
      a_hx_q       <= cmd_i[271:256];
      a_wx_q       <= cmd_i[287:272];
      a_clip_h_q   <= cmd_i[303:288];
      a_clip_w_q   <= cmd_i[319:304];
      a_ah_q       <= ah_new;
      a_aw_q       <= aw_new;
      for (int unsigned i = 0; i < NL; i++) begin
        a_lane_q[i]  <= lane[i];
        a_clane_q[i] <= clane[i];
      end
    end
  end

  // Stream positions of the active fold.
  logic [31:0]      a_idx_q;               // a (and OS w) rows taken
  logic [2:0][15:0] s_dig_q;               // digits of a_idx ([0] slowest)
  logic [31:0]      w_idx_q;               // WS weight rows taken
  logic [31:0]      c_idx_q;               // accumulate-in rows taken
  logic [31:0]      o_idx_q;               // result rows taken
  logic [2:0][15:0] s_rad;
  assign s_rad = os_i ? {a_tc_q, a_ts_q, a_tr_q} : {a_tq_q, a_tp_q, a_tn_q};

  // -------------------------------------------------------------------------------------------
  // Fold engine
  // -------------------------------------------------------------------------------------------
  logic                  a_ready, w_ready, c_ready, out_valid, out_last;
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
    .a_valid_i   (1'b1),
    .a_ready_o   (a_ready),
    .a_data_i    (a_data),
    .w_valid_i   (1'b1),
    .w_ready_o   (w_ready),
    .w_data_i    (w_data),
    .c_valid_i   (1'b1),
    .c_ready_o   (c_ready),
    .c_data_i    (c_data),
    .out_valid_o (out_valid),
    .out_ready_i (1'b1),
    .out_data_o  (out_data),
    .out_last_o  (out_last),
    .busy_o      (arr_busy),
    .done_o      (arr_done),
    .mac_cnt_o   (mac_cnt),
    .busy_cnt_o  (busy_cnt),
    .stall_cnt_o (stall_cnt)
  );

  assign fin = out_valid && out_last && a_last_q;

  // -------------------------------------------------------------------------------------------
  // Operand addresses
  // -------------------------------------------------------------------------------------------
  // {in bounds, buffer address} of input element (n, p, q) x (r, s, c) of the active fold's
  // tile; out of bounds is padding.
  function automatic logic [InAW:0] in_at(logic [15:0] nl, logic [15:0] pl, logic [15:0] ql,
                                          logic [15:0] rl, logic [15:0] sl, logic [15:0] cl);
    logic signed [31:0] hrow, wcol;
    logic [InAW-1:0] addr;
    logic ok;
    hrow = $signed(32'(pl) * 32'(a_ah_q) + 32'(rl)) - $signed(32'(a_clip_h_q));
    wcol = $signed(32'(ql) * 32'(a_aw_q) + 32'(sl)) - $signed(32'(a_clip_w_q));
    addr = InAW'(32'(a_in_base_q) +
           (((a_g_q * 32'(a_tn_q) + 32'(nl)) * 32'(a_hx_q) + 32'(hrow)) * 32'(a_wx_q) +
            32'(wcol)) * 32'(a_tc_q) + 32'(cl));
    ok = (hrow >= 0) && (hrow < $signed(32'(a_hx_q))) && (wcol >= 0) &&
         (wcol < $signed(32'(a_wx_q)));
    in_at = {ok, addr};
  endfunction

  // IS: reduction digits of the `w`-stream row being taken (row0 + w_idx).
  logic [2:0][15:0] w_dig;
  always_comb begin
    w_dig = a_lane_q[0];
    for (int unsigned i = 1; i < NL; i++) begin
      if (w_idx_q == 32'(i)) begin
        w_dig = a_lane_q[i];
      end
    end
  end

  // Input read lanes: WS / OS lane i streams activation row lane i (reduction digits from the
  // lane chain and pixel digits from the stream position, or the other way round); IS lane j
  // preloads input pixel j of the fold at the reduction index of the current `w` row.
  logic [NL-1:0] lane_ok;  // lane in use and not padding
  always_comb begin
    for (int unsigned i = 0; i < NL; i++) begin
      logic [InAW:0] at;
      if (is_i) begin
        at = in_at(a_clane_q[i][0], a_clane_q[i][1], a_clane_q[i][2], w_dig[0], w_dig[1],
                   w_dig[2]);
        lane_ok[i] = (i < a_cu_q) && at[InAW];
      end else begin
        if (os_i) begin
          at = in_at(a_lane_q[i][0], a_lane_q[i][1], a_lane_q[i][2], s_dig_q[0], s_dig_q[1],
                     s_dig_q[2]);
        end else begin
          at = in_at(s_dig_q[0], s_dig_q[1], s_dig_q[2], a_lane_q[i][0], a_lane_q[i][1],
                     a_lane_q[i][2]);
        end
        lane_ok[i] = (i < a_ru_q) && at[InAW];
      end
      in_rd_addr_o[i] = lane_ok[i] ? at[InAW-1:0] : '0;
    end
  end

  // Operand data: padding and unused lanes stream zero.
  always_comb begin
    for (int unsigned i = 0; i < Rows; i++) begin
      if (is_i) begin
        a_data[i*8 +: 8] = (i < a_ru_q) ? wt_rd_data_i[i] : 8'd0;
      end else begin
        a_data[i*8 +: 8] = lane_ok[i] ? in_rd_data_i[i] : 8'd0;
      end
    end
    for (int unsigned j = 0; j < Cols; j++) begin
      if (is_i) begin
        w_data[j*8 +: 8] = lane_ok[j] ? in_rd_data_i[j] : 8'd0;
      end else begin
        w_data[j*8 +: 8] = wt_rd_data_i[j];
      end
    end
  end

  always_comb begin
    logic [31:0] widx, wrow, crow, orow, wrow_is, acc_is;
    widx    = os_i ? a_idx_q : a_row0_q + w_idx_q;
    wrow    = 32'(a_wt_base_q) + (a_g_q * a_red_q + widx) * 32'(a_tk_q) + a_c0_q;
    crow    = 32'(a_acc_base_q) + (a_g_q * a_m_q + (os_i ? a_row0_q + c_idx_q : c_idx_q)) *
              32'(a_tk_q) + a_c0_q;
    orow    = 32'(a_acc_base_q) + (a_g_q * a_m_q + (os_i ? a_row0_q + o_idx_q : o_idx_q)) *
              32'(a_tk_q) + a_c0_q;
    // IS: weight row (reduction row0 + lane) at column k = a_idx; accumulator word of pixel
    // c0 + lane at k = c_idx / o_idx.
    wrow_is = 32'(a_wt_base_q) + (a_g_q * a_red_q + a_row0_q) * 32'(a_tk_q) + a_idx_q;
    acc_is  = 32'(a_acc_base_q) + (a_g_q * a_m_q + a_c0_q) * 32'(a_tk_q);
    for (int unsigned j = 0; j < NL; j++) begin
      if (is_i) begin
        wt_rd_addr_o[j] = (j < a_ru_q) ? WtAW'(wrow_is + 32'(j) * 32'(a_tk_q)) : '0;
      end else begin
        wt_rd_addr_o[j] = (j < a_cu_q) ? WtAW'(wrow + j) : '0;
      end
    end
    for (int unsigned j = 0; j < Cols; j++) begin
      if (is_i) begin
        acc_rd_addr_o[j] = (j < a_cu_q) ? AccAW'(acc_is + 32'(j) * 32'(a_tk_q) + c_idx_q) : '0;
        acc_wr_addr_o[j] = AccAW'(acc_is + 32'(j) * 32'(a_tk_q) + o_idx_q);
      end else begin
        acc_rd_addr_o[j] = (j < a_cu_q) ? AccAW'(crow + j) : '0;
        acc_wr_addr_o[j] = AccAW'(orow + j);
      end
      c_data[j*32 +: 32] = acc_rd_data_i[j];
      acc_wr_data_o[j]   = out_data[j*32 +: 32];
      acc_wr_en_o[j]     = out_valid && (j < a_cu_q);
    end
  end

  // -------------------------------------------------------------------------------------------
  // Stream counters, completion, counters
  // -------------------------------------------------------------------------------------------
  logic       a_fire, w_fire, c_fire;
  logic [7:0][63:0] cnt_q;
  logic       err_q;
  assign a_fire = a_ready;  // the sources are always valid
  assign w_fire = w_ready;
  assign c_fire = c_ready;

  // Next state written in the clocked block (issue depends on the DRAM inputs through the DMA
  // completion bypass; a simulator then evaluates this once per clock edge).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      it_g_q    <= '0;
      it_row0_q <= '0;
      it_c0_q   <= '0;
      it_dig_q  <= '0;
      it_cdig_q <= '0;
      act_q     <= 1'b0;
      a_idx_q   <= '0;
      s_dig_q   <= '0;
      w_idx_q   <= '0;
      c_idx_q   <= '0;
      o_idx_q   <= '0;
      done_q    <= '0;
      err_q     <= 1'b0;
      cnt_q     <= '0;
    end else begin
      // Fold iterator.
      if (issue) begin
        if (last_fold) begin
          it_g_q    <= '0;
          it_row0_q <= '0;
          it_c0_q   <= '0;
          it_dig_q  <= '0;
          it_cdig_q <= '0;
        end else if (!cols_outer_i) begin
          if (!last_col) begin
            it_c0_q   <= it_c0_q + pc;
            it_cdig_q <= clane_cu;
          end else begin
            it_c0_q   <= '0;
            it_cdig_q <= '0;
            if (!last_row) begin
              it_row0_q <= it_row0_q + pr;
              it_dig_q  <= lane_ru;
            end else begin
              it_row0_q <= '0;
              it_dig_q  <= '0;
              it_g_q    <= it_g_q + 16'd1;
            end
          end
        end else begin
          if (!last_row) begin
            it_row0_q <= it_row0_q + pr;
            it_dig_q  <= lane_ru;
          end else begin
            it_row0_q <= '0;
            it_dig_q  <= '0;
            if (!last_col) begin
              it_c0_q   <= it_c0_q + pc;
              it_cdig_q <= clane_cu;
            end else begin
              it_c0_q   <= '0;
              it_cdig_q <= '0;
              it_g_q    <= it_g_q + 16'd1;
            end
          end
        end
      end

      // Stream positions of the active fold.
      if (issue) begin
        act_q   <= 1'b1;
        a_idx_q <= '0;
        s_dig_q <= '0;
        w_idx_q <= '0;
        c_idx_q <= '0;
        o_idx_q <= '0;
        if (h_op != OpCompute || h_tg == '0 || h_tn == '0 || h_tp == '0 || h_tq == '0 ||
            h_tc == '0 || h_tr == '0 || h_ts == '0 || h_tk == '0) begin
          err_q <= 1'b1;
        end
      end else begin
        if (a_fire) begin
          a_idx_q <= a_idx_q + 32'd1;
          s_dig_q <= inc3(s_dig_q, s_rad[1], s_rad[2]);
        end
        if (w_fire && !os_i) begin
          w_idx_q <= w_idx_q + 32'd1;
        end
        if (c_fire) begin
          c_idx_q <= c_idx_q + 32'd1;
        end
        if (out_valid) begin
          o_idx_q <= o_idx_q + 32'd1;
        end
        if (out_valid && out_last) begin
          act_q <= 1'b0;
        end
      end
      if (fin) begin
        done_q <= done_q + 28'd1;
      end

      // Counters.
      cnt_q[0] <= mac_cnt;
      if (issue) begin
        cnt_q[1] <= cnt_q[1] + 64'd1;
      end
      // Input reads: the activation stream (WS, OS) or the preload (IS); weight reads the
      // other one.
      if (is_i ? w_fire : a_fire) begin
        cnt_q[2] <= cnt_q[2] + (is_i ? 64'(a_cu_q) : 64'(a_ru_q));
      end
      if (is_i ? a_fire : w_fire) begin
        cnt_q[3] <= cnt_q[3] + (is_i ? 64'(a_ru_q) : 64'(a_cu_q));
      end
      if (c_fire) begin
        cnt_q[4] <= cnt_q[4] + 64'(a_cu_q);
      end
      if (out_valid) begin
        cnt_q[5] <= cnt_q[5] + 64'(a_cu_q);
      end
      cnt_q[6] <= busy_cnt;
      cnt_q[7] <= stall_cnt;
    end
  end

  assign cmd_pop_o  = issue && last_fold;
  assign done_cnt_o = done_q;
  assign done_now_o = fin;
  assign busy_o     = act_q || arr_busy;
  assign cnt_o      = cnt_q;
  assign err_o      = err_q;

  logic unused_bits;
  assign unused_bits = ^{cmd_i[255:252], cmd_i[7:5], lane_rad[0], s_rad[0], arr_done};

endmodule
