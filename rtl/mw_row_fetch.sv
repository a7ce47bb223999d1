// mw_row_fetch: the compute controller's row fetch from one banked buffer (mw_bank_buf).
//
// A fold streams rows_i rows (taken at issue_i) of one buffer to the mesh. A row is requested
// (ask_o) while rows are left and nothing is in flight or held, or when the row in hand is taken
// in this cycle (take_i); a requested row stays requested until granted (gnt_i). The granted
// row's data (rd_data_i, with rd_valid_i, the cycle after the grant; lanes outside the mask
// taken at the grant from mask_i read as zero) is offered on row_o with valid_o; if it is not
// taken in that cycle it is held in a register and offered from there until taken. One instance
// serves the input buffer, one the weight buffer and, on banked architectures, one the
// accumulate-in rows from the accumulator (mw_compute).
// Registered: the held row and the request state; ask_o, valid_o and row_o are combinational.
module mw_row_fetch #(
  parameter int unsigned Lanes = 4,
  parameter int unsigned Width = 8   // bits per lane
) (
  input  logic                  clk_i,
  input  logic                  rst_ni,
  input  logic                  act_i,       // a fold is active
  input  logic                  issue_i,     // a fold is issued: restart with rows_i rows
  input  logic [31:0]           rows_i,      // rows of the issued fold
  input  logic                  take_i,      // the mesh takes the offered row in this cycle
  input  logic [Lanes-1:0]      mask_i,      // lanes of the requested row that carry data
  input  logic                  gnt_i,       // the buffer grants the request in this cycle
  input  logic                  rd_valid_i,  // the row granted in the previous cycle arrives
  input  logic [Lanes*Width-1:0]      rd_data_i,
  output logic                  ask_o,       // request the next row
  output logic                  valid_o,     // row_o holds a row for the mesh
  output logic [Lanes*Width-1:0]      row_o
);

  if (Lanes < 1 || Lanes > 64) begin : gen_bad_lanes
    $error("mw_row_fetch: Lanes must be in 1..64, got %0d", Lanes);
  end

  logic [31:0]           left_q;   // rows of the fold still to request
  logic                  prog_q;   // a request waits for its grant
  logic                  held_q;   // a granted row waits for the mesh
  logic [Lanes*Width-1:0]      hdata_q;
  logic [Lanes-1:0]      mask_q;   // data lanes of the last granted row

  always_comb begin
    for (int unsigned i = 0; i < Lanes; i++) begin
      row_o[i*Width +: Width] = held_q ? hdata_q[i*Width +: Width] :
                                (mask_q[i] ? rd_data_i[i*Width +: Width] : '0);
    end
  end
  assign valid_o = rd_valid_i || held_q;
  assign ask_o   = act_i && (left_q != '0) && (prog_q || !(rd_valid_i || held_q) || take_i);

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      left_q  <= '0;
      prog_q  <= 1'b0;
      held_q  <= 1'b0;
      hdata_q <= '0;
      mask_q  <= '0;
    end else if (issue_i) begin
      left_q <= rows_i;
      prog_q <= 1'b0;
      held_q <= 1'b0;
    end else begin
      if (ask_o) begin
        prog_q <= !gnt_i;
        if (gnt_i) begin
          left_q <= left_q - 32'd1;
          mask_q <= mask_i;
        end
      end
      if (rd_valid_i && !take_i) begin
        held_q  <= 1'b1;
        hdata_q <= row_o;
      end else if (held_q && take_i) begin
        held_q <= 1'b0;
      end
    end
  end

endmodule
