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
// Buffer layouts (one tile, per half): input [n][hrow][wcol][g][c] over the tile's distinct
// in-bounds rows and columns; weights [g][red][k] with red = (r, s, c), c fastest; accumulator
// [m][g][k] with m = (n, p, q), q fastest (input and accumulator in the DRAM layouts' order).
// The buffer row of output row pl and filter row rl is
// hrow = pl*A + rl - clip_h with A = stride if (rt >= stride or pt == 1) else rt; a position
// whose hrow (or wcol) falls outside [0, Hx) (or [0, Wx)) is padding: its lane streams zero, but
// the read is counted like every streamed activation.
// Dataflows: WS and IS fold the reduction (r, s, c) over the mesh rows; OS folds the output
// pixels (n, p, q) there. The mesh columns carry K (WS, OS) or the output pixels (IS). IS runs
// the fold engine in its stationary mode with the input tile in the weights' place: the `w`
// stream preloads, per reduction row, the fold's cu input pixels (input buffer, column lanes),
// the `a` stream carries one row of ru weights per output channel k (weight buffer, row lanes),
// and result row k holds out[k][pixels], written to the accumulator at [m][g][k] like the others.
// The input and weight buffers therefore have max(Rows, Cols) read lanes.
// Address generation: fold lanes are consecutive reduction indices (WS, IS rows), output pixels
// (OS rows, IS columns). Their address parts come from chains of mixed-radix increments (adds
// only) run once at fold issue and registered; the streamed position is a counter of the same
// kind, so an operand address is one add per lane and cycle (no divider, no multiply per cycle;
// the per-command strides are products of the head command's fields). Operand reads are
// combinational from the buffers; accumulator writes are registered.
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

  // -------------------------------------------------------------------------------------------
  // Walks: incremental address generation
  // -------------------------------------------------------------------------------------------
  // A position is three digits ([0] slowest) of either the reduction index (r, s, c) or the
  // output pixel (n, p, q), with the input-buffer address partial of each digit (digit x its
  // stride) and the buffer row / column partials, so that an input element's buffer address is
  // a sum of registered partials and its row / column a sum of two registered values. A walk
  // holds the radices and strides; adv() moves a position by one index with adds only.
  typedef struct packed {
    logic [3*16-1:0]  d;    // digits, digit t at [t*16 +: 16], 0 slowest
    logic [3*32-1:0]  off;  // address partial of each digit (digit t at [t*32 +: 32])
    logic [31:0]      h;    // buffer-row partial (of digit hd)
    logic [31:0]      w;    // buffer-column partial (of digit wd)
  } pos_t;
  typedef struct packed {
    logic [3*16-1:0]  rad;  // radices (the slowest digit never wraps)
    logic [3*32-1:0]  st;   // address stride of each digit
    logic [1:0]       hd;   // digit that moves the buffer row, by hs
    logic [1:0]       wd;   // digit that moves the buffer column, by ws
    logic [31:0]      hs;
    logic [31:0]      ws;
  } walk_t;

  // The LSB of each field of pos_t and walk_t (the last field at bit 0): adv() and the fold
  // set-up select fields as these bit ranges, as yosys 0.23 cannot select a struct's fields
  // inside a function or of a block-local variable.
  localparam int PosBits = 208, PosW = 0, PosH = 32, PosOff = 64, PosD = 160;
  localparam int WalkBits = 212, WkWs = 0, WkHs = 32, WkWd = 64, WkHd = 66, WkSt = 68,
                 WkRad = 164;
`ifndef SYNTHESIS
  if ($bits(pos_t) != PosBits || $bits(walk_t) != WalkBits) begin : gen_bad_layout
    $error("mw_compute: pos_t / walk_t field offsets out of date");
  end
`endif

  // The position one index further: the fastest digit that does not wrap increments (its
  // partials add their step), the faster ones restart at zero.
  function automatic logic [PosBits-1:0] adv(logic [PosBits-1:0] x, logic [WalkBits-1:0] k);
    logic [1:0]         j;
    logic [PosBits-1:0] y;  // the result
    y = x;
    if (x[PosD + 32 +: 16] + 16'd1 < k[WkRad + 32 +: 16]) begin
      j = 2'd2;
    end else if (x[PosD + 16 +: 16] + 16'd1 < k[WkRad + 16 +: 16]) begin
      j = 2'd1;
    end else begin
      j = 2'd0;
    end
    for (int unsigned t = 0; t < 3; t++) begin
      if (2'(t) == j) begin
        y[PosD + t*16 +: 16]   = x[PosD + t*16 +: 16] + 16'd1;
        y[PosOff + t*32 +: 32] = x[PosOff + t*32 +: 32] + k[WkSt + t*32 +: 32];
      end else if (2'(t) > j) begin
        y[PosD + t*16 +: 16]   = '0;
        y[PosOff + t*32 +: 32] = '0;
      end
    end
    if (k[WkHd +: 2] == j) begin
      y[PosH +: 32] = x[PosH +: 32] + k[WkHs +: 32];
    end else if (k[WkHd +: 2] > j) begin
      y[PosH +: 32] = '0;
    end
    if (k[WkWd +: 2] == j) begin
      y[PosW +: 32] = x[PosW +: 32] + k[WkWs +: 32];
    end else if (k[WkWd +: 2] > j) begin
      y[PosW +: 32] = '0;
    end
    adv = y;
  endfunction

  function automatic logic [31:0] off_sum(logic [3*32-1:0] off);
    off_sum = off[0 +: 32] + off[32 +: 32] + off[64 +: 32];
  endfunction

  // Input-buffer strides of the head command: one buffer column holds the tile's tg groups of
  // tc bytes side by side (group g at g * tc, the DRAM layout's order), one buffer row Wx
  // columns, one image Hx rows; an output row moves ah buffer rows, an output column aw
  // columns (A = stride if (rt >= stride or pt == 1) else rt). These products of the command's
  // fields are per-command constants; everything per fold and per cycle below is adds.
  logic [15:0] ah_new, aw_new;
  logic [15:0] h_hx, h_wx, h_clip_h, h_clip_w;
  logic [31:0] st_col, st_row, st_img, st_grp, st_clip, st_gwt, st_gacc, st_pix;
  walk_t       red_walk, pix_walk, lane_walk;
  assign h_hx     = cmd_i[271:256];
  assign h_wx     = cmd_i[287:272];
  assign h_clip_h = cmd_i[303:288];
  assign h_clip_w = cmd_i[319:304];
  assign ah_new   = ((h_tr >= stride_i) || (h_tp == 16'd1)) ? stride_i : h_tr;
  assign aw_new   = ((h_ts >= stride_i) || (h_tq == 16'd1)) ? stride_i : h_ts;
  assign st_col   = 32'(h_tg) * 32'(h_tc);
  assign st_row   = 32'(h_wx) * st_col;
  assign st_img   = 32'(h_hx) * st_row;
  assign st_grp   = 32'(h_tc);
  assign st_clip  = 32'(h_clip_h) * st_row + 32'(h_clip_w) * st_col;
  assign st_gwt   = h_red * 32'(h_tk);
  // Accumulator [m][g][k] (the DRAM layout's order): an output pixel holds the tile's tg
  // groups of tk words side by side.
  assign st_gacc  = 32'(h_tk);
  assign st_pix   = 32'(h_tg) * 32'(h_tk);
  // The walks as concatenations in walk_t's field order (rad, st, hd, wd, hs, ws): yosys 0.23
  // reads no assignment patterns.
  // Reduction (r, s, c): r moves one buffer row, s one column, c one byte.
  assign red_walk = {{h_tc, h_ts, h_tr}, {32'd1, st_col, st_row}, 2'd0, 2'd1, 32'd1, 32'd1};
  // Output pixel (n, p, q): n moves one image, p ah rows, q aw columns.
  assign pix_walk = {{h_tq, h_tp, h_tn}, {32'(aw_new) * st_col, 32'(ah_new) * st_row, st_img},
                     2'd1, 2'd2, 32'(ah_new), 32'(aw_new)};
  // Fold rows are reduction indices (WS, IS) or output pixels (OS).
  assign lane_walk = os_i ? pix_walk : red_walk;

  // -------------------------------------------------------------------------------------------
  // Fold iterator of the head command
  // -------------------------------------------------------------------------------------------
  logic [15:0] it_g_q;
  logic [31:0] it_row0_q, it_c0_q;
  pos_t        it_pos_q;    // position of row0 (lane walk)
  pos_t        it_cpos_q;   // IS: pixel position of c0
  logic [31:0] it_gin_q;    // input-buffer offset of group g: g * tc
  logic [31:0] it_gwt_q;    // weight-buffer offset of group g: g * red * tk
  logic [31:0] it_gacc_q;   // accumulator offset of group g: g * tk
  logic [31:0] it_row0k_q;  // row0 * tk (WS, IS: weight rows) or row0 * tg * tk (OS: pixels)
  logic [31:0] it_c0k_q;    // c0 * tg * tk (IS: pixels)

  logic [31:0] pr, pc, f_ru, f_cu;
  logic        last_row, last_col, last_fold;
  assign pr        = 32'(pe_rows_i);
  assign pc        = 32'(pe_cols_i);
  assign f_ru      = (h_rows - it_row0_q < pr) ? h_rows - it_row0_q : pr;
  assign f_cu      = (h_kc - it_c0_q < pc) ? h_kc - it_c0_q : pc;
  assign last_row  = (it_row0_q + pr >= h_rows);
  assign last_col  = (it_c0_q + pc >= h_kc);
  assign last_fold = last_row && last_col && (it_g_q + 16'd1 >= h_tg);
  logic [31:0] pr_k, pc_k;  // a row / column fold's step of it_row0k_q / it_c0k_q
  assign pr_k = pr * (os_i ? st_pix : 32'(h_tk));
  assign pc_k = pc * st_pix;

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

  // -------------------------------------------------------------------------------------------
  // Active fold: set up at issue, used by the operand and result streams
  // -------------------------------------------------------------------------------------------
  // Per input read lane: its part of the input address and of the buffer row / column (the
  // low-edge clip folded in). The streamed position adds the rest, so a lane's address is one
  // add and its padding test two adds and compares. Per weight / accumulator lane: its offset
  // from the lane-0 address (j, or j * tk under IS).
  logic              act_q;                 // a fold is in flight
  logic              a_last_q;              // the fold is its command's last
  logic [31:0]       a_ru_q, a_cu_q;
  logic [NL*32-1:0]    a_lin_q, a_lh_q, a_lw_q, a_lk_q, a_la_q;
  walk_t             s_walk_q;              // walk of the streamed input index
  pos_t              s_pos_q;               // streamed input position
  logic [31:0]       s_base_q;              // input base + group offset
  logic [31:0]       s_addr_q;              // s_base + the streamed position's address partials
  logic [31:0]       w_addr_q, w_step_q;    // weight lane-0 address and its step
  logic [31:0]       c_addr_q, o_addr_q;    // accumulate-in / result lane-0 addresses
  logic [31:0]       acc_step_q;            // their step per row

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      it_g_q     <= '0;
      it_row0_q  <= '0;
      it_c0_q    <= '0;
      it_pos_q   <= '0;
      it_cpos_q  <= '0;
      it_gin_q   <= '0;
      it_gwt_q   <= '0;
      it_gacc_q  <= '0;
      it_row0k_q <= '0;
      it_c0k_q   <= '0;
      a_last_q   <= 1'b0;
      a_ru_q     <= '0;
      a_cu_q     <= '0;
      a_lin_q    <= '0;
      a_lh_q     <= '0;
      a_lw_q     <= '0;
      a_lk_q     <= '0;
      a_la_q     <= '0;
      s_walk_q   <= '0;
      acc_step_q <= '0;
    end else if (issue) begin : set_up
      // Chains of positions: lane[i] = row0 + i (lane walk), clane[j] = (IS) pixel c0 + j.
      // They run to NL so every read lane has a position; lanes past the fold are unused.
      pos_t        lane  [NL+1];
      pos_t        clane [NL+1];
      logic [31:0] lk, la;
      pos_t        lane_ru, clane_cu;  // the next row / column fold's first
      logic [PosD-1:0] li;             // lane i's position without its digits
      lane[0]  = it_pos_q;
      clane[0] = it_cpos_q;
      for (int unsigned i = 1; i <= NL; i++) begin
        lane[i]  = adv(lane[i-1], lane_walk);
        clane[i] = adv(clane[i-1], pix_walk);
      end
      lane_ru  = lane[0];
      clane_cu = clane[0];
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

      a_last_q <= last_fold;
      a_ru_q   <= f_ru;
      a_cu_q   <= f_cu;
      lk       = '0;
      la       = '0;
      for (int unsigned i = 0; i < NL; i++) begin
        // Fields of block-local structs as bit ranges (yosys 0.23 cannot select them).
        li                  = PosD'(is_i ? clane[i] : lane[i]);
        a_lin_q[i*32 +: 32] <= off_sum(li[PosOff +: 96]);
        a_lh_q[i*32 +: 32]  <= li[PosH +: 32] - 32'(h_clip_h);
        a_lw_q[i*32 +: 32]  <= li[PosW +: 32] - 32'(h_clip_w);
        a_lk_q[i*32 +: 32]  <= lk;
        a_la_q[i*32 +: 32]  <= la;
        lk         = lk + (is_i ? 32'(h_tk) : 32'd1);
        la         = la + (is_i ? st_pix : 32'd1);
      end
      // The streamed input index: output pixels from zero (WS), reduction indices from zero
      // (OS) or from row0 (IS, the `w` stream's reduction row).
      s_walk_q   <= (os_i || is_i) ? red_walk : pix_walk;
      acc_step_q <= is_i ? 32'd1 : st_pix;

      // Fold iterator (the offsets follow the indices: group, row0 * tk, c0 * tk).
      if (last_fold) begin
        it_g_q     <= '0;
        it_row0_q  <= '0;
        it_c0_q    <= '0;
        it_pos_q   <= '0;
        it_cpos_q  <= '0;
        it_gin_q   <= '0;
        it_gwt_q   <= '0;
        it_gacc_q  <= '0;
        it_row0k_q <= '0;
        it_c0k_q   <= '0;
      end else if (!cols_outer_i) begin
        if (!last_col) begin
          it_c0_q   <= it_c0_q + pc;
          it_cpos_q <= clane_cu;
          it_c0k_q  <= it_c0k_q + pc_k;
        end else begin
          it_c0_q   <= '0;
          it_cpos_q <= '0;
          it_c0k_q  <= '0;
          if (!last_row) begin
            it_row0_q  <= it_row0_q + pr;
            it_pos_q   <= lane_ru;
            it_row0k_q <= it_row0k_q + pr_k;
          end else begin
            it_row0_q  <= '0;
            it_pos_q   <= '0;
            it_row0k_q <= '0;
            it_g_q     <= it_g_q + 16'd1;
            it_gin_q   <= it_gin_q + st_grp;
            it_gwt_q   <= it_gwt_q + st_gwt;
            it_gacc_q  <= it_gacc_q + st_gacc;
          end
        end
      end else begin
        if (!last_row) begin
          it_row0_q  <= it_row0_q + pr;
          it_pos_q   <= lane_ru;
          it_row0k_q <= it_row0k_q + pr_k;
        end else begin
          it_row0_q  <= '0;
          it_pos_q   <= '0;
          it_row0k_q <= '0;
          if (!last_col) begin
            it_c0_q   <= it_c0_q + pc;
            it_cpos_q <= clane_cu;
            it_c0k_q  <= it_c0k_q + pc_k;
          end else begin
            it_c0_q   <= '0;
            it_cpos_q <= '0;
            it_c0k_q  <= '0;
            it_g_q    <= it_g_q + 16'd1;
            it_gin_q  <= it_gin_q + st_grp;
            it_gwt_q  <= it_gwt_q + st_gwt;
            it_gacc_q <= it_gacc_q + st_gacc;
          end
        end
      end
    end
  end

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
  // Input read lanes: WS / OS lane i streams activation row lane i (its reduction or pixel
  // part plus the streamed position's other part); IS lane j preloads input pixel j of the fold
  // at the reduction index of the current `w` row. A lane whose buffer row or column falls
  // outside [0, Hx) / [0, Wx) is padding: it streams zero, but the read is counted like every
  // streamed activation.
  logic [15:0]   a_hx_q, a_wx_q;
  logic [NL-1:0] lane_ok;  // lane in use and not padding
  logic [NL-1:0] lane_in;  // lane in use (banked: takes its bank, padding included)
  always_comb begin
    for (int unsigned i = 0; i < NL; i++) begin
      logic signed [31:0] hrow, wcol, virt, vb;
      hrow       = $signed(s_pos_q.h + a_lh_q[i*32 +: 32]);
      wcol       = $signed(s_pos_q.w + a_lw_q[i*32 +: 32]);
      lane_in[i] = (i < (is_i ? a_cu_q : a_ru_q));
      lane_ok[i] = lane_in[i] && (hrow >= 0) && (hrow < $signed(32'(a_hx_q))) && (wcol >= 0) &&
                   (wcol < $signed(32'(a_wx_q)));
      virt       = $signed(s_addr_q + a_lin_q[i*32 +: 32]);
      // Banked: a padding lane reads word 0 of the bank its virtual address falls into (floor
      // modulo), so that every row of a fold has the same bank conflicts; its word is dropped.
      vb         = virt % $signed(32'(Banks));
      if (vb < 0) begin
        vb = vb + $signed(32'(Banks));
      end
      if (lane_ok[i]) begin
        in_rd_addr_o[i*InAW +: InAW] = InAW'(virt);
      end else if (Banked && lane_in[i]) begin
        in_rd_addr_o[i*InAW +: InAW] = InAW'(vb);
      end else begin
        in_rd_addr_o[i*InAW +: InAW] = '0;
      end
    end
  end

  // Banked buffers: one row fetch per buffer (mw_row_fetch) requests the fold's rows one at a
  // time, holds a granted row until the mesh takes it and zeroes the input row's padding lanes
  // (the mask taken at the grant). The position registers advance at the grant. A fold's first
  // row is requested in the cycle after its issue.
  logic                in_v, wt_v, in_ask, wt_ask, acc_v, acc_ask;
  logic [NL*8-1:0]     in_row, wt_row;          // the row offered to the mesh
  logic [Cols*32-1:0]    acc_row;               // the accumulate-in row offered to the mesh
  logic [Cols-1:0]     acc_en;                  // its lanes in use
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
      .ask_o      (in_ask),
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
      .ask_o      (wt_ask),
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
      .take_i     (c_ready && acc_v),
      .mask_i     (acc_en),
      .gnt_i      (acc_rd_gnt_i),
      .rd_valid_i (acc_rd_valid_i),
      .rd_data_i  (acc_rd_data_i),
      .ask_o      (acc_ask),
      .valid_o    (acc_v),
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
    assign in_ask    = 1'b0;
    assign wt_ask    = 1'b0;
    assign in_v      = 1'b1;
    assign wt_v      = 1'b1;
    for (genvar i = 0; i < NL; i++) begin : gen_lane
      assign in_row[i*8 +: 8] = lane_ok[i] ? in_rd_data_i[i*8 +: 8] : 8'd0;
    end
    assign wt_row = wt_rd_data_i;
    assign acc_ask   = 1'b0;
    assign acc_v     = 1'b1;
    assign acc_row   = acc_rd_data_i;
    assign out_ready = 1'b1;
    logic unused_acc;
    assign unused_acc = ^{acc_rd_gnt_i, acc_rd_valid_i, acc_wr_gnt_i};
  end
  assign in_rd_req_o  = in_ask;
  assign wt_rd_req_o  = wt_ask;
  assign acc_rd_req_o = acc_ask;
  assign c_valid      = acc_v;
  assign acc_rd_en_o  = acc_en;
  assign acc_wr_req_o = Banked && out_valid;
  assign in_rd_en_o  = lane_in;
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
      acc_en[j]          = (j < a_cu_q);
      acc_rd_addr_o[j*AccAW +: AccAW]   = acc_en[j] ? AccAW'(c_addr_q + a_la_q[j*32 +: 32]) : '0;
      acc_wr_addr_o[j*AccAW +: AccAW]   = AccAW'(o_addr_q + a_la_q[j*32 +: 32]);
      c_data[j*32 +: 32] = acc_row[j*32 +: 32];
      acc_wr_data_o[j*32 +: 32]   = out_data[j*32 +: 32];
      acc_wr_en_o[j]     = out_valid && (j < a_cu_q);
    end
  end

  // -------------------------------------------------------------------------------------------
  // Stream counters, completion, counters
  // -------------------------------------------------------------------------------------------
  logic       a_fire, w_fire, c_fire, s_fire;
  logic [8*64-1:0]  cnt_q;
  logic       err_q;
  assign a_fire = a_valid && a_ready;
  assign w_fire = w_valid && w_ready;
  assign c_fire = c_ready && c_valid;
  // Banked: the accumulate-in address advances at the grant of its row's read, the result
  // address when the result row is written.
  logic c_adv, o_fire;
  assign c_adv  = Banked ? (acc_ask && acc_rd_gnt_i) : c_fire;
  assign o_fire = out_valid && out_ready;
  // The streamed input index advances when its row is taken (banked: granted).
  assign s_fire = Banked ? (in_ask && in_rd_gnt_i) : (is_i ? w_fire : a_fire);

  // Every buffer address a lane uses fits the buffer's address width before it is truncated to
  // the port (simulation only, kept with --assert): the driver checks the mapping's capacity,
  // so a violation is an address-generation error that truncation would otherwise hide.
  `ifndef SYNTHESIS
  for (genvar i = 0; i < NL; i++) begin : gen_rd_range
    in_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (act_q && s_fire && lane_ok[i]) |-> ((s_addr_q + a_lin_q[i*32 +: 32]) >> InAW) == '0);
    wt_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (act_q && (Banked ? wt_ask : (is_i ? a_fire : w_fire)) &&
         (32'(i) < (is_i ? a_ru_q : a_cu_q))) |->
        ((w_addr_q + a_lk_q[i*32 +: 32]) >> WtAW) == '0);
  end
  for (genvar j = 0; j < Cols; j++) begin : gen_acc_range
    acc_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (act_q && (Banked ? acc_ask : c_fire) && (32'(j) < a_cu_q)) |->
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
      s_pos_q  <= '0;
      s_base_q <= '0;
      s_addr_q <= '0;
      a_hx_q   <= '0;
      a_wx_q   <= '0;
      w_addr_q <= '0;
      w_step_q <= '0;
      c_addr_q <= '0;
      o_addr_q <= '0;
      done_q   <= '0;
      err_q    <= 1'b0;
      cnt_q    <= '0;
    end else begin
      // Stream positions of the active fold.
      if (issue) begin : start
        logic [31:0] inb, wt0, acc0;
        inb      = 32'(cmd_i[211:192]) + it_gin_q - st_clip;
        act_q    <= 1'b1;
        a_hx_q   <= h_hx;
        a_wx_q   <= h_wx;
        s_base_q <= inb;
        if (is_i) begin
          s_pos_q  <= it_pos_q;
          s_addr_q <= inb + off_sum(it_pos_q.off);
        end else begin
          s_pos_q  <= '0;
          s_addr_q <= inb;
        end
        wt0  = 32'(cmd_i[231:212]) + it_gwt_q;
        acc0 = 32'(cmd_i[251:232]) + it_gacc_q;
        if (is_i) begin
          w_addr_q <= wt0 + it_row0k_q;
          w_step_q <= 32'd1;
          c_addr_q <= acc0 + it_c0k_q;
          o_addr_q <= acc0 + it_c0k_q;
        end else if (os_i) begin
          w_addr_q <= wt0 + it_c0_q;
          w_step_q <= 32'(h_tk);
          c_addr_q <= acc0 + it_row0k_q + it_c0_q;
          o_addr_q <= acc0 + it_row0k_q + it_c0_q;
        end else begin
          w_addr_q <= wt0 + it_row0k_q + it_c0_q;
          w_step_q <= 32'(h_tk);
          c_addr_q <= acc0 + it_c0_q;
          o_addr_q <= acc0 + it_c0_q;
        end
        if (h_op != OpCompute || h_tg == '0 || h_tn == '0 || h_tp == '0 || h_tq == '0 ||
            h_tc == '0 || h_tr == '0 || h_ts == '0 || h_tk == '0) begin
          err_q <= 1'b1;
        end
      end else begin
        if (s_fire) begin : step
          pos_t nx;
          nx       = adv(s_pos_q, s_walk_q);
          s_pos_q  <= nx;
          s_addr_q <= s_base_q + off_sum(nx[PosOff +: 96]);
        end
        // The weight row advances with the `w` stream (WS) or the `a` stream (OS, IS); banked:
        // at the grant of its read.
        if (Banked ? (wt_ask && wt_rd_gnt_i) : (os_i || is_i ? a_fire : w_fire)) begin
          w_addr_q <= w_addr_q + w_step_q;
        end
        if (c_adv) begin
          c_addr_q <= c_addr_q + acc_step_q;
        end
        if (o_fire) begin
          o_addr_q <= o_addr_q + acc_step_q;
        end
        if (o_fire && out_last) begin
          act_q <= 1'b0;
        end
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

  logic unused_bits;
  assign unused_bits = ^{cmd_i[255:252], cmd_i[7:5], arr_done};

endmodule
