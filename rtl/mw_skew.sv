// mw_skew: input skew for the systolic mesh.
//
// Delays lane k of a Lanes-wide bus by k enabled cycles, so that element k of a row entering
// in one cycle meets the mesh diagonal: lane 0 passes through combinationally, lane k goes through
// a k-stage shift register. Used for activations (lane = mesh row) and for output-stationary
// weights (lane = mesh column).
// Registered except lane 0; latency of lane k is k cycles. en_i = 0 holds every stage;
// clr_i zeroes every stage.
module mw_skew #(
  parameter int unsigned Lanes = 4,
  parameter int unsigned Width = 8
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   en_i,    // shift one step
  input  logic                   clr_i,   // synchronous clear of all stages
  input  logic [Lanes*Width-1:0] data_i,  // lane k at [k*Width +: Width]
  output logic [Lanes*Width-1:0] data_o   // lane k delayed by k cycles
);

  if (Lanes < 1 || Lanes > 64) begin : gen_bad_lanes
    $error("mw_skew: Lanes must be in 1..64, got %0d", Lanes);
  end
  if (Width < 1) begin : gen_bad_width
    $error("mw_skew: Width must be at least 1, got %0d", Width);
  end

  assign data_o[0 +: Width] = data_i[0 +: Width];

  // One register per stage (a generate block each, no array): a simulator then keeps no
  // per-element write flags for the shift.
  for (genvar k = 1; k < Lanes; k++) begin : gen_lane
    for (genvar s = 0; s < k; s++) begin : gen_stage
      logic [Width-1:0] d;
      logic [Width-1:0] q;
      if (s == 0) begin : gen_first
        assign d = data_i[k*Width +: Width];
      end else begin : gen_next
        assign d = gen_stage[s-1].q;
      end
      always_ff @(posedge clk_i) begin
        if (!rst_ni || clr_i) begin
          q <= '0;
        end else if (en_i) begin
          q <= d;
        end
      end
    end

    assign data_o[k*Width +: Width] = gen_stage[k-1].q;
  end

endmodule
