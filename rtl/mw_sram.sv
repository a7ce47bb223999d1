// mw_sram: behavioral model of one SRAM macro with one read port and one write port.
//
// This module is the macro boundary: a design for silicon replaces it by a compiled 1R1W SRAM of
// Depth words of Width bits and keeps everything around it. Read data is registered: the word at
// rd_addr_i in a cycle with rd_en_i set appears on rd_data_o in the next cycle and stays there
// until the next read. A write (wr_en_i) takes effect at the clock edge; a read of the address
// written in the same cycle returns the old word (read-first). No reset: the contents and the
// read register are undefined until written. Both addresses must lie below Depth (SVAs).
module mw_sram #(
  parameter int unsigned Depth = 1024,  // words
  parameter int unsigned Width = 8,     // bits per word
  localparam int unsigned AW = (Depth > 1) ? $clog2(Depth) : 1
) (
  input  logic             clk_i,
  input  logic             rd_en_i,
  input  logic [AW-1:0]    rd_addr_i,
  output logic [Width-1:0] rd_data_o,  // registered: the word read in the previous cycle
  input  logic             wr_en_i,
  input  logic [AW-1:0]    wr_addr_i,
  input  logic [Width-1:0] wr_data_i
);

  if (Depth < 2) begin : gen_bad_depth
    $error("mw_sram: Depth must be at least 2, got %0d", Depth);
  end

  logic [Width-1:0] mem_q [Depth];
  logic [Width-1:0] rd_q;

  // Every enabled port addresses a word of the macro (simulation only, kept with --assert).
  `ifndef SYNTHESIS
  sram_rd_range_a: assert property (@(posedge clk_i) !rd_en_i || (32'(rd_addr_i) < Depth));
  sram_wr_range_a: assert property (@(posedge clk_i) !wr_en_i || (32'(wr_addr_i) < Depth));
  `endif

  always_ff @(posedge clk_i) begin
    if (rd_en_i && (32'(rd_addr_i) < Depth)) begin
      rd_q <= mem_q[rd_addr_i];
    end
    if (wr_en_i && (32'(wr_addr_i) < Depth)) begin
      mem_q[wr_addr_i] <= wr_data_i;
    end
  end

  assign rd_data_o = rd_q;

endmodule
