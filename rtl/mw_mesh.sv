// mw_mesh: a Rows x Cols grid of mw_pe processing elements.
//
// Activations enter at the left edge (a_i lane r feeds row r) and move one PE to the right per
// cycle; weights enter at the top edge (b_i lane c feeds column c, output-stationary) and move one
// PE down per cycle; partial sums (weight-stationary) start at zero above row 0 and move one PE
// down per cycle. A weight row broadcast on w_i is written into the held weights of every row r
// with w_ld_i[r] set (weight-stationary preload). Inputs are expected already skewed (mw_skew).
// row_o is a combinational read of the registered sums of row row_sel_i: the partial sums leaving
// that row (weight-stationary) or its accumulated outputs (output-stationary).
// Registered: every PE register; a value entering at an edge reaches PE (r, c) after r + c
// cycles (counted in enabled cycles). row_o adds no latency.
module mw_mesh #(
  parameter int unsigned Rows = 4,
  parameter int unsigned Cols = 4,
  parameter int unsigned OpW  = 8,
  parameter int unsigned AccW = 32,
  localparam int unsigned SelW = $clog2(Rows)
) (
  input  logic                 clk_i,
  input  logic                 rst_ni,
  input  logic                 en_i,       // advance one step (global stall when low)
  input  logic                 clr_i,      // synchronous clear of all PE state
  input  logic                 os_i,       // 1: output-stationary, 0: weight-stationary
  input  logic [Rows*OpW-1:0]  a_i,        // left edge, lane r = row r
  input  logic [Cols*OpW-1:0]  b_i,        // top edge, lane c = column c (OS weights)
  input  logic [Cols*OpW-1:0]  w_i,        // weight row broadcast (WS preload)
  input  logic [Rows-1:0]      w_ld_i,     // per-row write enable for w_i
  input  logic [SelW-1:0]      row_sel_i,  // row read by row_o
  output logic [Cols*AccW-1:0] row_o       // sums of row row_sel_i, lane c = column c
);

  if (Rows < 2 || Rows > 64) begin : gen_bad_rows
    $error("mw_mesh: Rows must be in 2..64, got %0d", Rows);
  end
  if (Cols < 2 || Cols > 64) begin : gen_bad_cols
    $error("mw_mesh: Cols must be in 2..64, got %0d", Cols);
  end

  // Vertical partial-sum links: ps_v[r][c] is the sum held by PE (r, c) (an array: row_o
  // reads it by a run-time row index).
  logic [AccW-1:0] ps_v [Rows][Cols];

  for (genvar r = 0; r < Rows; r++) begin : gen_row
    for (genvar c = 0; c < Cols; c++) begin : gen_col
      // The activation and weight leaving this PE to the right and downwards. Neighbours read
      // them by name (gen_row[r].gen_col[c-1].a_o) rather than through a link array, so a
      // simulator can alias them to the PE's registers instead of copying them every cycle.
      logic [OpW-1:0]  a_o;
      logic [OpW-1:0]  b_o;
      logic [OpW-1:0]  a_in;
      logic [OpW-1:0]  b_in;
      logic [AccW-1:0] ps_in;

      if (c == 0) begin : gen_left
        assign a_in = a_i[r*OpW +: OpW];
      end else begin : gen_inner_a
        assign a_in = gen_row[r].gen_col[c-1].a_o;
      end
      if (r == 0) begin : gen_top
        assign b_in  = b_i[c*OpW +: OpW];
        assign ps_in = '0;
      end else begin : gen_inner_b
        assign b_in  = gen_row[r-1].gen_col[c].b_o;
        assign ps_in = ps_v[r-1][c];
      end

      mw_pe #(
        .OpW  (OpW),
        .AccW (AccW)
      ) u_pe (
        .clk_i  (clk_i),
        .rst_ni (rst_ni),
        .en_i   (en_i),
        .clr_i  (clr_i),
        .os_i   (os_i),
        .a_i    (a_in),
        .b_i    (b_in),
        .w_i    (w_i[c*OpW +: OpW]),
        .w_ld_i (w_ld_i[r]),
        .ps_i   (ps_in),
        .acc_i  (ps_v[r][c]),
        .a_o    (a_o),
        .b_o    (b_o),
        .ps_o   (ps_v[r][c])
      );
    end
  end

  // Row read port.
  always_comb begin
    row_o = '0;
    if (32'(row_sel_i) < Rows) begin
      for (int unsigned c = 0; c < Cols; c++) begin
        row_o[c*AccW +: AccW] = ps_v[row_sel_i][c];
      end
    end
  end

endmodule
