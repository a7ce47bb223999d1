// mw_array: fold engine around the Rows x Cols systolic mesh.
//
// Computes one fold of a GEMM per command, C[x][j] = (acc ? Cin[x][j] : 0) + sum_i A * B, from
// operand streams to result rows, holding no buffers of its own:
//   - weight-stationary (cmd_os_i = 0): ru weight rows of cu bytes are preloaded from the w stream
//     (W[i][0..cu-1], one row per cycle), then N = M activation rows of ru bytes stream in on a
//     (A[m][0..ru-1]); the engine returns M result rows of cu int32 values on out, where
//     out[m][j] = sum_{i<ru} A[m][i] * W[i][j].
//   - output-stationary (cmd_os_i = 1): N = L reduction steps stream in on a (A[0..ru-1][k]) and
//     w (B[k][0..cu-1]) together; the mesh accumulates in place and then returns ru result rows
//     of cu int32 values, out[r][j] = sum_{k<L} A[r][k] * B[k][j].
// With cmd_acc_i set, row x of the c stream (cu int32 values) is added to result row x; it is
// taken in the cycle the row is formed, one cycle before the row appears on out.
// All streams are valid/ready. The engine moves in lock-step: a cycle advances only when every
// stream the schedule needs in that cycle is valid and the output register is free, otherwise
// the whole engine stalls (inputs are ready whenever the other needed inputs are valid and the
// output is not blocked). Without stalls a fold is busy for exactly
//   WS: M + 2*ru + cu cycles,    OS: L + ru + cu cycles,
// and a new command is taken in the cycle the last result row leaves, so folds run back to back.
// Registered: result rows leave from a register; the command fields are registered on accept.
module mw_array #(
  parameter int unsigned Rows = 4,   // mesh rows (WS reduction / OS output rows), 2..64
  parameter int unsigned Cols = 4,   // mesh columns (output columns), 2..64
  parameter int unsigned OpW  = 8,   // operand width (signed)
  parameter int unsigned AccW = 32,  // accumulator width (signed, wrapping)
  parameter int unsigned NW   = 16,  // width of the streamed length N (M or L), 8..32
  parameter int unsigned CntW = 64,  // width of the performance counters
  localparam int unsigned RW   = $clog2(Rows + 1),
  localparam int unsigned CW   = $clog2(Cols + 1)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,

  // Command: one fold.
  input  logic                 cmd_valid_i,
  output logic                 cmd_ready_o,
  input  logic                 cmd_os_i,      // 0: weight-stationary, 1: output-stationary
  input  logic [NW-1:0]        cmd_n_i,       // M (WS) or L (OS), >= 1
  input  logic [RW-1:0]        cmd_ru_i,      // rows used, 1..Rows
  input  logic [CW-1:0]        cmd_cu_i,      // columns used, 1..Cols
  input  logic                 cmd_acc_i,     // add the c stream to the results

  // Activation stream: lane r (byte r) = mesh row r; lanes >= ru are ignored.
  input  logic                 a_valid_i,
  output logic                 a_ready_o,
  input  logic [Rows*OpW-1:0]  a_data_i,

  // Weight stream (WS preload rows or OS weight rows): lane j = column j; lanes >= cu ignored.
  input  logic                 w_valid_i,
  output logic                 w_ready_o,
  input  logic [Cols*OpW-1:0]  w_data_i,

  // Accumulate-in stream (only with cmd_acc_i): lane j = column j; lanes >= cu ignored.
  input  logic                 c_valid_i,
  output logic                 c_ready_o,
  input  logic [Cols*AccW-1:0] c_data_i,

  // Result rows: lane j = column j; lanes >= cu are zero. out_last_o marks a fold's last row.
  output logic                 out_valid_o,
  input  logic                 out_ready_i,
  output logic [Cols*AccW-1:0] out_data_o,
  output logic                 out_last_o,

  // Status and counters (counters run from reset and wrap).
  output logic                 busy_o,        // a fold is in progress
  output logic                 done_o,        // one-cycle pulse after a fold's last row left
  output logic [CntW-1:0]      mac_cnt_o,     // useful MACs: ru * cu per streamed row
  output logic [CntW-1:0]      busy_cnt_o,    // cycles with busy_o set
  output logic [CntW-1:0]      stall_cnt_o    // busy cycles that did not advance
);

  localparam int unsigned TW   = NW + 1;  // schedule time: holds N + ru + cu - 1 < 2^(NW+1)
  localparam int unsigned SelW = $clog2(Rows);

  if (Rows < 2 || Rows > 64) begin : gen_bad_rows
    $error("mw_array: Rows must be in 2..64, got %0d", Rows);
  end
  if (Cols < 2 || Cols > 64) begin : gen_bad_cols
    $error("mw_array: Cols must be in 2..64, got %0d", Cols);
  end
  if (NW < 8 || NW > 32) begin : gen_bad_nw
    $error("mw_array: NW must be in 8..32, got %0d", NW);
  end
  if (CntW < 32 || CntW > 64) begin : gen_bad_cntw
    $error("mw_array: CntW must be in 32..64, got %0d", CntW);
  end

  typedef enum logic [1:0] {
    StIdle,  // waiting for a command
    StLoad,  // WS weight preload, one weight row per advance
    StRun    // streaming operands and draining result rows
  } state_e;

  // ---------------------------------------------------------------------------------------------
  // Control registers
  // ---------------------------------------------------------------------------------------------
  // Next-state logic is written inside the clocked block: a simulator then evaluates it once per
  // clock edge instead of with every input change (the command handshake depends on inputs).
  state_e            state_q;
  logic              os_q;                // dataflow of the current fold
  logic              acc_q;               // accumulate flag of the current fold
  logic [TW-1:0]     n_q;                 // streamed rows N (M or L)
  logic [RW-1:0]     ru_q;
  logic [CW-1:0]     cu_q;
  logic [RW-1:0]     p_q;                 // WS preload row
  logic [TW-1:0]     t_q;                 // schedule time in the run phase
  logic [TW-1:0]     tf_q;                // time the first result row is formed
  logic [TW-1:0]     tl_q;                // time the last result row is formed
  logic [2*RW+CW-1:0] macs_q;             // ru * cu
  logic              out_valid_q;
  logic              out_last_q;
  logic [Cols*AccW-1:0] out_data_q;
  logic              done_q;
  logic [CntW-1:0]   mac_cnt_q;
  logic [CntW-1:0]   busy_cnt_q;
  logic [CntW-1:0]   stall_cnt_q;

  // ---------------------------------------------------------------------------------------------
  // Schedule: what the current cycle needs, and whether it advances
  // ---------------------------------------------------------------------------------------------
  logic st_load, st_run;
  logic need_a, need_w, need_c, form;
  logic go_a, go_w, go_c;
  logic blocked, adv, fin, cmd_fire;

  assign st_load  = (state_q == StLoad);
  assign st_run   = (state_q == StRun);
  assign need_a   = st_run && (t_q < n_q);
  assign need_w   = st_load || (st_run && os_q && (t_q < n_q));
  assign form     = st_run && (t_q >= tf_q) && (t_q <= tl_q);
  assign need_c   = form && acc_q;
  assign go_a     = !need_a || a_valid_i;
  assign go_w     = !need_w || w_valid_i;
  assign go_c     = !need_c || c_valid_i;
  assign blocked  = out_valid_q && !out_ready_i;
  assign adv      = (st_load || st_run) && !blocked && go_a && go_w && go_c;
  assign fin      = st_run && out_valid_q && out_last_q && out_ready_i;

  assign a_ready_o   = need_a && !blocked && go_w && go_c;
  assign w_ready_o   = need_w && !blocked && go_a && go_c;
  assign c_ready_o   = need_c && !blocked && go_a && go_w;
  assign cmd_ready_o = (state_q == StIdle) || fin;
  assign cmd_fire    = cmd_valid_i && cmd_ready_o;

  // Lane masks for the rows and columns in use.
  logic [Rows-1:0] row_used;
  logic [Cols-1:0] col_used;
  always_comb begin
    for (int unsigned r = 0; r < Rows; r++) begin
      row_used[r] = (RW'(r) < ru_q);
    end
    for (int unsigned c = 0; c < Cols; c++) begin
      col_used[c] = (CW'(c) < cu_q);
    end
  end

  // ---------------------------------------------------------------------------------------------
  // Datapath: skew -> mesh -> deskew -> output register
  // ---------------------------------------------------------------------------------------------
  logic [Rows*OpW-1:0]  a_in, a_skewed;
  logic [Cols*OpW-1:0]  w_in, b_in, b_skewed;
  logic [Rows-1:0]      w_ld;
  logic [SelW-1:0]      row_sel;
  logic [Cols*AccW-1:0] mesh_row, ws_row;

  always_comb begin
    a_in = '0;
    w_in = '0;
    for (int unsigned r = 0; r < Rows; r++) begin
      if (need_a && row_used[r]) begin
        a_in[r*OpW +: OpW] = a_data_i[r*OpW +: OpW];
      end
    end
    for (int unsigned c = 0; c < Cols; c++) begin
      if (need_w && col_used[c]) begin
        w_in[c*OpW +: OpW] = w_data_i[c*OpW +: OpW];
      end
    end
    b_in = os_q ? w_in : '0;
    w_ld = '0;
    for (int unsigned r = 0; r < Rows; r++) begin
      if (st_load && adv && (p_q == RW'(r))) begin
        w_ld[r] = 1'b1;
      end
    end
    // WS: partial sums leave the last used row; OS: drain row t - tf.
    row_sel = os_q ? SelW'(t_q - tf_q) : SelW'(ru_q - RW'(1));
  end

  mw_skew #(
    .Lanes (Rows),
    .Width (OpW)
  ) u_skew_a (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .en_i   (adv),
    .clr_i  (cmd_fire),
    .used_i ('0),
    .data_i (a_in),
    .data_o (a_skewed)
  );

  mw_skew #(
    .Lanes (Cols),
    .Width (OpW)
  ) u_skew_b (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .en_i   (adv),
    .clr_i  (cmd_fire),
    .used_i ('0),
    .data_i (b_in),
    .data_o (b_skewed)
  );

  mw_mesh #(
    .Rows (Rows),
    .Cols (Cols),
    .OpW  (OpW),
    .AccW (AccW)
  ) u_mesh (
    .clk_i     (clk_i),
    .rst_ni    (rst_ni),
    .en_i      (adv),
    .clr_i     (cmd_fire),
    .os_i      (os_q),
    .a_i       (a_skewed),
    .b_i       (b_skewed),
    .w_i       (w_in),
    .w_ld_i    (w_ld),
    .row_sel_i (row_sel),
    .row_o     (mesh_row)
  );

  mw_skew #(
    .Lanes  (Cols),
    .Width  (AccW),
    .Deskew (1'b1)
  ) u_deskew (
    .clk_i  (clk_i),
    .rst_ni (rst_ni),
    .en_i   (adv),
    .clr_i  (cmd_fire),
    .used_i (cu_q),
    .data_i (mesh_row),
    .data_o (ws_row)
  );

  // Result row formed in this cycle: aligned sums, plus the c row when accumulating (lanes at
  // or above cu are zero).
  function automatic logic [Cols*AccW-1:0] formed_row();
    formed_row = '0;
    for (int unsigned c = 0; c < Cols; c++) begin
      if (col_used[c]) begin
        formed_row[c*AccW +: AccW] = (os_q ? mesh_row[c*AccW +: AccW] : ws_row[c*AccW +: AccW])
                                   + (acc_q ? c_data_i[c*AccW +: AccW] : AccW'(0));
      end
    end
  endfunction

  // ---------------------------------------------------------------------------------------------
  // State
  // ---------------------------------------------------------------------------------------------
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q     <= StIdle;
      os_q        <= 1'b0;
      acc_q       <= 1'b0;
      n_q         <= '0;
      ru_q        <= '0;
      cu_q        <= '0;
      p_q         <= '0;
      t_q         <= '0;
      tf_q        <= '0;
      tl_q        <= '0;
      macs_q      <= '0;
      out_valid_q <= 1'b0;
      out_last_q  <= 1'b0;
      out_data_q  <= '0;
      done_q      <= 1'b0;
      mac_cnt_q   <= '0;
      busy_cnt_q  <= '0;
      stall_cnt_q <= '0;
    end else begin
      done_q <= fin;
      if (out_ready_i) begin
        out_valid_q <= 1'b0;
      end

      unique case (state_q)
        StIdle: ;
        StLoad: begin
          if (adv) begin
            p_q <= p_q + RW'(1);
            if (p_q == ru_q - RW'(1)) begin
              state_q <= StRun;
              t_q     <= '0;
            end
          end
        end
        StRun: begin
          if (adv && (t_q <= tl_q)) begin
            t_q <= t_q + TW'(1);
          end
          if (fin) begin
            state_q <= StIdle;
          end
        end
        default: state_q <= StIdle;
      endcase

      if (adv) begin
        out_valid_q <= form;
        out_last_q  <= form && (t_q == tl_q);
        if (form) begin
          out_data_q <= formed_row();
        end
      end

      if (state_q != StIdle) begin
        busy_cnt_q <= busy_cnt_q + CntW'(1);
        if (!adv) begin
          stall_cnt_q <= stall_cnt_q + CntW'(1);
        end
      end
      if (need_a && adv) begin
        mac_cnt_q <= mac_cnt_q + CntW'(macs_q);
      end

      if (cmd_fire) begin
        state_q <= cmd_os_i ? StRun : StLoad;
        os_q    <= cmd_os_i;
        acc_q   <= cmd_acc_i;
        n_q     <= TW'(cmd_n_i);
        ru_q    <= cmd_ru_i;
        cu_q    <= cmd_cu_i;
        p_q     <= '0;
        t_q     <= '0;
        macs_q  <= (2*RW+CW)'(cmd_ru_i) * (2*RW+CW)'(cmd_cu_i);
        if (cmd_os_i) begin
          tf_q <= TW'(cmd_n_i) + TW'(cmd_cu_i) - TW'(1);
        end else begin
          tf_q <= TW'(cmd_ru_i) + TW'(cmd_cu_i) - TW'(1);
        end
        tl_q <= TW'(cmd_n_i) + TW'(cmd_ru_i) + TW'(cmd_cu_i) - TW'(2);
      end
    end
  end

  assign out_valid_o = out_valid_q;
  assign out_data_o  = out_data_q;
  assign out_last_o  = out_last_q;
  assign busy_o      = (state_q != StIdle);
  assign done_o      = done_q;
  assign mac_cnt_o   = mac_cnt_q;
  assign busy_cnt_o  = busy_cnt_q;
  assign stall_cnt_o = stall_cnt_q;

  // ---------------------------------------------------------------------------------------------
  // Assertions (active with verilator --assert)
  // ---------------------------------------------------------------------------------------------
  `ifndef SYNTHESIS
  cmd_n_nonzero_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      cmd_fire |-> (cmd_n_i != '0))
    else $error("mw_array: command N (M or L) must be at least 1");
  cmd_ru_nonzero_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      cmd_fire |-> (cmd_ru_i != '0))
    else $error("mw_array: command ru must be at least 1");
  cmd_cu_nonzero_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      cmd_fire |-> (cmd_cu_i != '0))
    else $error("mw_array: command cu must be at least 1");
  // The upper bounds can only be broken when the field can encode more than Rows / Cols.
  if ((2 ** RW) - 1 > Rows) begin : gen_chk_ru_max
    cmd_ru_max_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        cmd_fire |-> (cmd_ru_i <= RW'(Rows)))
      else $error("mw_array: command ru must be at most %0d", Rows);
  end
  if ((2 ** CW) - 1 > Cols) begin : gen_chk_cu_max
    cmd_cu_max_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        cmd_fire |-> (cmd_cu_i <= CW'(Cols)))
      else $error("mw_array: command cu must be at most %0d", Cols);
  end
  `endif

endmodule
