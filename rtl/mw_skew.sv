// mw_skew: the input skew and the output deskew of the systolic mesh. Lane k of a Lanes-wide
// bus goes through a chain of registers (one per enabled cycle of delay) and leaves it at a tap.
//
// Skew (Deskew = 0): lane k is delayed by k enabled cycles, so that element k of a row entering
// in one cycle meets the mesh diagonal: lane 0 passes through combinationally, lane k leaves
// the end of a k-stage chain. Used for activations (lane = mesh row) and for output-stationary
// weights (lane = mesh column); used_i is not read.
// Deskew (Deskew = 1, the weight-stationary outputs): lanes leave the mesh staggered, lane k
// (mesh column k) k cycles later than lane 0. Lane k is delayed by (used_i - 1 - k) enabled
// cycles so that the first used_i lanes of one result row line up in one cycle: it holds a
// (Lanes - 1 - k)-stage chain and used_i selects the tap, so the alignment latency follows the
// number of columns in use rather than Lanes. Lanes k >= used_i are don't-care. used_i must be
// held stable while data flows.
// Registered stages with a combinational tap mux (deskew); a lane with a zero delay passes
// through combinationally. en_i = 0 holds every stage; clr_i zeroes every stage.
module mw_skew #(
  parameter int unsigned Lanes  = 4,
  parameter int unsigned Width  = 8,
  parameter bit          Deskew = 1'b0,
  localparam int unsigned UsedW = $clog2(Lanes + 1)
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,
  input  logic                   en_i,    // shift one step
  input  logic                   clr_i,   // synchronous clear of all stages
  input  logic [UsedW-1:0]       used_i,  // deskew: number of lanes in use, 1..Lanes
  input  logic [Lanes*Width-1:0] data_i,  // lane k at [k*Width +: Width]
  output logic [Lanes*Width-1:0] data_o   // skew: lane k delayed by k; deskew: lanes aligned
);

  if (Lanes < 1 || Lanes > 64) begin : gen_bad_lanes
    $error("mw_skew: Lanes must be in 1..64, got %0d", Lanes);
  end
  if (Width < 1) begin : gen_bad_width
    $error("mw_skew: Width must be at least 1, got %0d", Width);
  end

  for (genvar k = 0; k < Lanes; k++) begin : gen_lane
    localparam int unsigned Depth = Deskew ? Lanes - 1 - k : k;

    if (Depth == 0) begin : gen_pass
      assign data_o[k*Width +: Width] = data_i[k*Width +: Width];
    end else begin : gen_delay
      // Stage s of the chain, one register per stage (a generate block each, no array): a
      // simulator then keeps no per-element write flags for the shift.
      logic [Width-1:0] sr_q [Depth];

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

      if (Deskew) begin : gen_tap
        // Tap mux: stage tap - 1 for a tap (delay used_i - 1 - k, wrapping when the lane is
        // unused) in 1..Depth, else the lane's input.
        localparam int unsigned IW = (Depth > 1) ? $clog2(Depth) : 1;
        logic [UsedW-1:0] tap;
        always_comb begin
          tap = used_i - UsedW'(k + 1);
          if ((tap != '0) && (32'(tap) <= Depth)) begin
            data_o[k*Width +: Width] = sr_q[IW'(tap - UsedW'(1))];
          end else begin
            data_o[k*Width +: Width] = data_i[k*Width +: Width];
          end
        end
      end else begin : gen_end
        assign data_o[k*Width +: Width] = sr_q[Depth-1];
      end
    end
  end

  if (!Deskew) begin : gen_skew
    logic unused_used;
    assign unused_used = ^used_i;
  end

endmodule
