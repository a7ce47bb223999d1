// mw_deskew: output deskew for the weight-stationary mesh.
//
// Lanes leave the mesh staggered: lane k (mesh column k) is k cycles later than lane 0. This
// module delays lane k by (used_i - 1 - k) enabled cycles so that the first used_i lanes of one
// result row line up in one cycle. Lane k holds a (Lanes - 1 - k)-stage shift register; used_i
// selects the tap, so the alignment latency follows the number of columns in use rather than
// Lanes. Lanes k >= used_i are don't-care. used_i must be held stable while data flows.
// Registered shift stages with a combinational tap mux; latency of lane k is used_i - 1 - k
// cycles (the last used lane passes through combinationally). en_i = 0 holds every stage;
// clr_i zeroes every stage.
module mw_deskew #(
  parameter int unsigned Lanes = 4,
  parameter int unsigned Width = 32,
  localparam int unsigned UsedW = $clog2(Lanes + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   en_i,    // shift one step
  input  logic                   clr_i,   // synchronous clear of all stages
  input  logic [UsedW-1:0]       used_i,  // number of lanes in use, 1..Lanes
  input  logic [Lanes*Width-1:0] data_i,  // lane k at [k*Width +: Width]
  output logic [Lanes*Width-1:0] data_o   // lanes 0..used_i-1 aligned
);

  if (Lanes < 1 || Lanes > 64) begin : gen_bad_lanes
    $error("mw_deskew: Lanes must be in 1..64, got %0d", Lanes);
  end
  if (Width < 1) begin : gen_bad_width
    $error("mw_deskew: Width must be at least 1, got %0d", Width);
  end

  for (genvar k = 0; k < Lanes; k++) begin : gen_lane
    localparam int unsigned Depth = Lanes - 1 - k;

    if (Depth == 0) begin : gen_pass
      assign data_o[k*Width +: Width] = data_i[k*Width +: Width];
    end else begin : gen_delay
      // Stage s of the shift register, one register per stage (a generate block each, no
      // array): a simulator then keeps no per-element write flags for the shift.
      logic [Width-1:0] sr_q [Depth];
      logic [UsedW-1:0] tap;  // delay of this lane: used_i - 1 - k (wraps when unused)

      for (genvar s = 0; s < Depth; s++) begin : gen_stage
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
        assign sr_q[s] = q;
      end

      // Tap mux: stage tap - 1 for a tap in 1..Depth, else the lane's input.
      localparam int unsigned IW = (Depth > 1) ? $clog2(Depth) : 1;
      always_comb begin
        tap = used_i - UsedW'(k + 1);
        if ((tap != '0) && (32'(tap) <= Depth)) begin
          data_o[k*Width +: Width] = sr_q[IW'(tap - UsedW'(1))];
        end else begin
          data_o[k*Width +: Width] = data_i[k*Width +: Width];
        end
      end
    end
  end

endmodule
