// mw_fold_seq: the fold sequencer and address generator of mw_compute. It iterates the folds
// of the compute queue's head command and, at each fold's issue, sets up the fold's per-lane
// address partials and the lane-0 addresses of its streams; during the fold it advances the
// streamed input position and the weight, accumulate-in and result addresses when mw_compute
// says their rows move. Everything here is registered; mw_compute forms each lane's address
// from these registers with one add.
//
// Buffer layouts (one tile, per half): input [n][hrow][wcol][g][c] over the tile's distinct
// in-bounds rows and columns; weights [g][red][k] with red = (r, s, c), c fastest; accumulator
// [m][g][k] with m = (n, p, q), q fastest (input and accumulator in the DRAM layouts' order).
// The buffer row of output row pl and filter row rl is
// hrow = pl*A + rl - clip_h with A = stride if (rt >= stride or pt == 1) else rt; a position
// whose hrow (or wcol) falls outside [0, Hx) (or [0, Wx)) is padding: its lane streams zero, but
// the read is counted like every streamed activation.
// Address generation: fold lanes are consecutive reduction indices (WS, IS rows), output pixels
// (OS rows, IS columns). Their address parts come from chains of mixed-radix increments (adds
// only) run once at fold issue and registered; the streamed position is a counter of the same
// kind, so an operand address is one add per lane and cycle (no divider, no multiply per cycle;
// the per-command strides are products of the head command's fields).
module mw_fold_seq #(
  parameter int unsigned Rows = 4,
  parameter int unsigned Cols = 4,
  localparam int unsigned NL  = (Rows > Cols) ? Rows : Cols  // input / weight read lanes
) (
  input  logic              clk_i,
  input  logic              rst_ni,

  // Compute queue head and configuration (mw_compute's ports of the same names).
  input  logic [319:0]      cmd_i,
  input  logic              os_i,
  input  logic              is_i,
  input  logic              cols_outer_i,
  input  logic [15:0]       pe_rows_i,
  input  logic [15:0]       pe_cols_i,
  input  logic [15:0]       stride_i,

  // The head command's next fold, combinational from the head and the iterator.
  output logic [31:0]       h_m_o,         // output pixels of the step: tn * tp * tq
  output logic [31:0]       h_red_o,       // reduction length: tc * tr * ts
  output logic [15:0]       h_tk_o,        // output channels
  output logic [31:0]       f_ru_o,        // mesh rows the fold uses
  output logic [31:0]       f_cu_o,        // mesh columns the fold uses
  output logic              f_acc_o,       // the fold accumulates into the accumulator
  output logic              last_fold_o,   // the fold is the command's last
  output logic              bad_o,         // the head command is malformed

  // Stream events from mw_compute.
  input  logic              issue_i,       // the fold is issued this cycle
  input  logic              s_adv_i,       // the streamed input index advances
  input  logic              w_adv_i,       // the weight row advances
  input  logic              c_adv_i,       // the accumulate-in row advances
  input  logic              o_adv_i,       // the result row advances

  // The active fold (registered at issue): see "Active fold" below.
  output logic              a_last_o,
  output logic [31:0]       a_ru_o,
  output logic [31:0]       a_cu_o,
  output logic [NL*32-1:0]  a_lin_o,
  output logic [NL*32-1:0]  a_lh_o,
  output logic [NL*32-1:0]  a_lw_o,
  output logic [NL*32-1:0]  a_lk_o,
  output logic [NL*32-1:0]  a_la_o,
  output logic [15:0]       a_hx_o,        // distinct input rows Hx held in the buffer
  output logic [15:0]       a_wx_o,        // distinct input columns Wx
  // Stream addresses (registered, advanced by the events above).
  output logic [31:0]       s_h_o,         // streamed position's buffer-row partial
  output logic [31:0]       s_w_o,         // streamed position's buffer-column partial
  output logic [31:0]       s_addr_o,      // input lane-0 address
  output logic [31:0]       w_addr_o,      // weight lane-0 address
  output logic [31:0]       c_addr_o,      // accumulate-in lane-0 address
  output logic [31:0]       o_addr_o       // result lane-0 address
);

  localparam logic [3:0] OpCompute = 4'd7;

  // -------------------------------------------------------------------------------------------
  // Head command fields and derived sizes
  // -------------------------------------------------------------------------------------------
  logic [3:0]  h_op;
  logic        h_accum;
  logic [15:0] h_tg, h_tn, h_tp, h_tq, h_tc, h_tr, h_ts, h_tk;
  logic [31:0] h_m, h_red, h_rows, h_kc;
  assign h_op       = cmd_i[3:0];
  assign h_accum    = cmd_i[4];
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
  // The axes of the fold grid that move at an issue: the inner one (columns, or rows when
  // cols_outer_i) always, the outer one when the inner one is at its last fold.
  logic        col_move, row_move;
  assign col_move = !cols_outer_i || last_row;
  assign row_move = cols_outer_i || last_col;

  // WS: only the first reduction fold of a fresh tile overwrites; OS: the whole fresh step.
  logic f_acc;
  assign f_acc = os_i ? h_accum : (h_accum || (it_row0_q != '0));

  // -------------------------------------------------------------------------------------------
  // Active fold: set up at issue, used by the operand and result streams
  // -------------------------------------------------------------------------------------------
  // Per input read lane: its part of the input address and of the buffer row / column (the
  // low-edge clip folded in). The streamed position adds the rest, so a lane's address is one
  // add and its padding test two adds and compares. Per weight / accumulator lane: its offset
  // from the lane-0 address (j, or j * tk under IS).
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
  logic [15:0]       a_hx_q, a_wx_q;        // the head's Hx, Wx

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
      s_pos_q    <= '0;
      s_base_q   <= '0;
      s_addr_q   <= '0;
      a_hx_q     <= '0;
      a_wx_q     <= '0;
      w_addr_q   <= '0;
      w_step_q   <= '0;
      c_addr_q   <= '0;
      o_addr_q   <= '0;
    end else if (issue_i) begin : set_up
      // Chains of positions: lane i = row0 + i (lane walk), clane j = (IS) pixel c0 + j.
      // They run to NL so every read lane has a position; lanes past the fold are unused.
      // Packed vectors (lane i at [i*PosBits +: PosBits]), not unpacked arrays of pos_t: yosys
      // 0.23 lost the address partials written into a block-local `pos_t lane [NL+1]` here
      // (every lane's input offset read 0 in its netlist; Verilator ran the RTL as written), a
      // simulation/synthesis mismatch that `mapwright synth --gate-sim` found.
      logic [(NL+1)*PosBits-1:0] lane, clane;
      logic [31:0] lk, la;
      pos_t        lane_ru, clane_cu;  // the next row / column fold's first
      logic [PosD-1:0] li;             // lane i's position without its digits
      logic [31:0] inb, wt0, acc0;     // the fold's input, weight and accumulator bases
      lane[0 +: PosBits]  = it_pos_q;
      clane[0 +: PosBits] = it_cpos_q;
      for (int unsigned i = 1; i <= NL; i++) begin
        lane[i*PosBits +: PosBits]  = adv(lane[(i-1)*PosBits +: PosBits], lane_walk);
        clane[i*PosBits +: PosBits] = adv(clane[(i-1)*PosBits +: PosBits], pix_walk);
      end
      lane_ru  = it_pos_q;
      clane_cu = it_cpos_q;
      for (int unsigned i = 1; i <= Rows; i++) begin
        if (f_ru == i) begin
          lane_ru = lane[i*PosBits +: PosBits];
        end
      end
      for (int unsigned j = 1; j <= Cols; j++) begin
        if (f_cu == j) begin
          clane_cu = clane[j*PosBits +: PosBits];
        end
      end

      a_last_q <= last_fold;
      a_ru_q   <= f_ru;
      a_cu_q   <= f_cu;
      lk       = '0;
      la       = '0;
      for (int unsigned i = 0; i < NL; i++) begin
        // Fields of block-local structs as bit ranges (yosys 0.23 cannot select them).
        li                  = is_i ? clane[i*PosBits +: PosD] : lane[i*PosBits +: PosD];
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

      // The fold's stream addresses, from the head command's bases and the iterator's offsets;
      // the stream events advance them during the fold (an issue takes precedence: the
      // previous fold has ended by then).
      inb      = 32'(cmd_i[211:192]) + it_gin_q - st_clip;
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

      // Fold iterator (the offsets follow the indices: group, row0 * tk, c0 * tk): each axis
      // that moves steps to its next fold or, past its last, restarts at zero; the group
      // steps when both axes restart, and the command's last fold restarts everything.
      if (col_move) begin
        it_c0_q   <= last_col ? '0 : it_c0_q + pc;
        it_cpos_q <= last_col ? '0 : clane_cu;
        it_c0k_q  <= last_col ? '0 : it_c0k_q + pc_k;
      end
      if (row_move) begin
        it_row0_q  <= last_row ? '0 : it_row0_q + pr;
        it_pos_q   <= last_row ? '0 : lane_ru;
        it_row0k_q <= last_row ? '0 : it_row0k_q + pr_k;
      end
      if (last_row && last_col) begin
        it_g_q    <= last_fold ? '0 : it_g_q + 16'd1;
        it_gin_q  <= last_fold ? '0 : it_gin_q + st_grp;
        it_gwt_q  <= last_fold ? '0 : it_gwt_q + st_gwt;
        it_gacc_q <= last_fold ? '0 : it_gacc_q + st_gacc;
      end
    end else begin
      if (s_adv_i) begin : step
        pos_t nx;
        nx       = adv(s_pos_q, s_walk_q);
        s_pos_q  <= nx;
        s_addr_q <= s_base_q + off_sum(nx[PosOff +: 96]);
      end
      if (w_adv_i) begin
        w_addr_q <= w_addr_q + w_step_q;
      end
      if (c_adv_i) begin
        c_addr_q <= c_addr_q + acc_step_q;
      end
      if (o_adv_i) begin
        o_addr_q <= o_addr_q + acc_step_q;
      end
    end
  end

  assign h_m_o       = h_m;
  assign h_red_o     = h_red;
  assign h_tk_o      = h_tk;
  assign f_ru_o      = f_ru;
  assign f_cu_o      = f_cu;
  assign f_acc_o     = f_acc;
  assign last_fold_o = last_fold;
  assign bad_o       = h_op != OpCompute || h_tg == '0 || h_tn == '0 || h_tp == '0 ||
                       h_tq == '0 || h_tc == '0 || h_tr == '0 || h_ts == '0 || h_tk == '0;
  assign a_last_o    = a_last_q;
  assign a_ru_o      = a_ru_q;
  assign a_cu_o      = a_cu_q;
  assign a_lin_o     = a_lin_q;
  assign a_lh_o      = a_lh_q;
  assign a_lw_o      = a_lw_q;
  assign a_lk_o      = a_lk_q;
  assign a_la_o      = a_la_q;
  assign a_hx_o      = a_hx_q;
  assign a_wx_o      = a_wx_q;
  assign s_h_o       = s_pos_q.h;
  assign s_w_o       = s_pos_q.w;
  assign s_addr_o    = s_addr_q;
  assign w_addr_o    = w_addr_q;
  assign c_addr_o    = c_addr_q;
  assign o_addr_o    = o_addr_q;

  // The fence counts (cmd_i[63:8]) are mw_compute's; bits 7:5 and 255:252 are unused.
  logic unused_bits;
  assign unused_bits = ^{cmd_i[255:252], cmd_i[63:5]};

endmodule
