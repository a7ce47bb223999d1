// mw_pe: one processing element (PE) of the mw_mesh systolic array.
//
// Multiplies a signed OpW-bit activation by a signed OpW-bit weight and adds the product to a
// signed AccW-bit sum (two's complement, wrapping). The dataflow is selected at run time by os_i:
//   - weight-stationary (os_i = 0): the weight is held in b_q (written from w_i when w_ld_i is
//     set), activations pass left->right and partial sums pass top->bottom:
//       acc_q <= ps_i + a_i * b_q
//   - output-stationary (os_i = 1): activations pass left->right, weights pass top->bottom
//     through b_q, and the output accumulates in place:
//       acc_q <= acc_i + a_i * b_i
//     where acc_i is this PE's own ps_o (= acc_q) wired back by mw_mesh. The feedback goes
//     through the port rather than reading acc_q directly so that a simulator (Verilator)
//     keeps no shadow copy of the accumulator for the non-blocking update; the logic is the
//     same register with an adder in its feedback path.
// Registered: a_o, b_o and ps_o (= acc_q) are flops, so operands and partial sums advance one PE
// per cycle (latency 1 cycle from a_i/b_i/ps_i to a_o/b_o/ps_o). en_i = 0 holds every register
// (global stall); clr_i zeroes every register and dominates en_i and w_ld_i.
module mw_pe #(
  parameter int unsigned OpW  = 8,
  parameter int unsigned AccW = 32
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   en_i,    // advance one step (global stall when low)
  input  logic                   clr_i,   // synchronous clear of all state
  input  logic                   os_i,    // 1: output-stationary, 0: weight-stationary
  input  logic signed [OpW-1:0]  a_i,     // activation from the left neighbour
  input  logic signed [OpW-1:0]  b_i,     // weight from the top neighbour (OS)
  input  logic signed [OpW-1:0]  w_i,     // weight to hold (WS preload)
  input  logic                   w_ld_i,  // load w_i into the held weight (WS preload)
  input  logic signed [AccW-1:0] ps_i,    // partial sum from the top neighbour (WS)
  input  logic signed [AccW-1:0] acc_i,   // this PE's own ps_o, fed back by the mesh (OS)
  output logic signed [OpW-1:0]  a_o,     // activation to the right neighbour
  output logic signed [OpW-1:0]  b_o,     // weight to the bottom neighbour (OS)
  output logic signed [AccW-1:0] ps_o     // partial sum (WS) or accumulated output (OS)
);

  localparam int unsigned ProdW = 2 * OpW;

  if (OpW < 2 || OpW > 16) begin : gen_bad_opw
    $error("mw_pe: OpW must be in 2..16, got %0d", OpW);
  end
  if (AccW < ProdW || AccW > 64) begin : gen_bad_accw
    $error("mw_pe: AccW must be in 2*OpW..64, got %0d", AccW);
  end

  logic signed [OpW-1:0]   a_q;
  logic signed [OpW-1:0]   b_q;
  logic signed [AccW-1:0]  acc_q;

  // Next-state logic lives in the clocked block (no separate combinational next-state), so a
  // simulator evaluates the multiply-add once per clock edge and only when enabled.
  always_ff @(posedge clk_i) begin
    if (!rst_ni || clr_i) begin
      a_q   <= '0;
      b_q   <= '0;
      acc_q <= '0;
    end else begin
      if (w_ld_i) begin
        b_q <= w_i;
      end
      if (en_i) begin
        a_q <= a_i;
        if (os_i) begin
          acc_q <= acc_i + AccW'(ProdW'(a_i) * ProdW'(b_i));
          b_q   <= b_i;
        end else begin
          acc_q <= ps_i + AccW'(ProdW'(a_i) * ProdW'(b_q));
        end
      end
    end
  end

  assign a_o  = a_q;
  assign b_o  = b_q;
  assign ps_o = acc_q;

endmodule
