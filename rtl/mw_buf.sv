// mw_buf: an on-chip buffer (input, weight or accumulator) as a plain register array.
//
// Depth entries of Width bits with RdPorts combinational read lanes and WrPorts write lanes, each
// at its own address in every cycle. This is a modelling simplification: silicon would bank the
// buffer so that the lanes of one cycle fall into different banks; here any lane may address any
// entry. Reads are combinational (rd_data_o follows rd_addr_i in the same cycle); writes are
// registered (visible from the next cycle). Two enabled write lanes must not address the same
// entry in one cycle (the higher lane wins). Out-of-range read addresses return zero and
// out-of-range writes are dropped. No reset: entries are only read after being written.
module mw_buf #(
  parameter int unsigned Depth   = 1024,  // entries
  parameter int unsigned Width   = 8,     // bits per entry
  parameter int unsigned RdPorts = 4,     // read lanes
  parameter int unsigned WrPorts = 4,     // write lanes
  localparam int unsigned AW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic                            clk_i,
  input  logic [RdPorts*AW-1:0]           rd_addr_i,  // read lane addresses
  output logic [RdPorts*Width-1:0]        rd_data_o,  // read lane data (same cycle)
  input  logic [WrPorts-1:0]              wr_en_i,    // write lane enables
  input  logic [WrPorts*AW-1:0]           wr_addr_i,  // write lane addresses
  input  logic [WrPorts*Width-1:0]        wr_data_i   // write lane data
);

  if (Depth < 2) begin : gen_bad_depth
    $error("mw_buf: Depth must be at least 2, got %0d", Depth);
  end

  logic [Width-1:0] mem_q [Depth];

  always_comb begin
    for (int unsigned p = 0; p < RdPorts; p++) begin
      rd_data_o[p*Width +: Width] =
          (32'(rd_addr_i[p*AW +: AW]) < Depth) ? mem_q[rd_addr_i[p*AW +: AW]] : '0;
    end
  end

  // Every enabled write lane addresses an entry of the buffer (simulation only, kept with
  // --assert): a write past the end would be dropped silently.
  `ifndef SYNTHESIS
  for (genvar p = 0; p < WrPorts; p++) begin : gen_wr_range
    buf_wr_range_a: assert property (@(posedge clk_i)
        !wr_en_i[p] || (32'(wr_addr_i[p*AW +: AW]) < Depth));
  end
  `endif

  always_ff @(posedge clk_i) begin
    for (int unsigned p = 0; p < WrPorts; p++) begin
      if (wr_en_i[p] && (32'(wr_addr_i[p*AW +: AW]) < Depth)) begin
        mem_q[wr_addr_i[p*AW +: AW]] <= wr_data_i[p*Width +: Width];
      end
    end
  end

endmodule
