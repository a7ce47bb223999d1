// mw_fifo: synchronous first-in first-out queue of Width-bit entries.
//
// Holds up to Depth entries in a register array with read and write pointers. The head entry is
// shown combinationally on rdata_o whenever valid_o is set (first-word fall-through), so a
// consumer may look at the head before popping it. A push into a full queue and a pop from an
// empty one are ignored (the caller checks full_o / valid_o). Push and pop may happen in the same
// cycle. Registered: an entry pushed in cycle t is visible at the head from cycle t + 1.
module mw_fifo #(
  parameter int unsigned Width = 64,  // entry width in bits
  parameter int unsigned Depth = 4,   // entries, a power of two, 2..256
  localparam int unsigned PtrW = $clog2(Depth),
  localparam int unsigned CntW = $clog2(Depth + 1)
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             push_i,   // write wdata_i (ignored when full)
  input  logic [Width-1:0] wdata_i,
  input  logic             pop_i,    // drop the head (ignored when empty)
  output logic             valid_o,  // the queue holds at least one entry
  output logic [Width-1:0] rdata_o,  // head entry (valid with valid_o)
  output logic             full_o,   // no space for a push
  output logic [CntW-1:0]  count_o   // entries held
);

  if (Depth < 2 || Depth > 256 || (Depth & (Depth - 1)) != 0) begin : gen_bad_depth
    $error("mw_fifo: Depth must be a power of two in 2..256, got %0d", Depth);
  end

  // Read and write pointers with a wrap bit above the entry index (CntW = PtrW + 1 bits): the
  // queue holds wptr - rptr entries (modulo 2 Depth). It is empty when the pointers are equal
  // and full when only their wrap bits differ.
  logic [Width-1:0] mem_q [Depth];
  logic [CntW-1:0]  rptr_q, wptr_q;
  logic             empty, full;
  logic             do_push, do_pop;

  assign empty   = (wptr_q == rptr_q);
  assign full    = ((wptr_q ^ rptr_q) == CntW'(Depth));
  assign do_push = push_i && !full;
  assign do_pop  = pop_i && !empty;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      rptr_q <= '0;
      wptr_q <= '0;
    end else begin
      if (do_push) begin
        wptr_q <= wptr_q + CntW'(1);
      end
      if (do_pop) begin
        rptr_q <= rptr_q + CntW'(1);
      end
    end
  end

  // Storage: no reset (entries are only read after being written).
  always_ff @(posedge clk_i) begin
    if (do_push) begin
      mem_q[wptr_q[PtrW-1:0]] <= wdata_i;
    end
  end

  // Contract of the callers (simulation only, kept with --assert): a push into a full queue
  // would lose its entry, a pop of an empty one would desynchronize the consumer.
  `ifndef SYNTHESIS
  fifo_overflow_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !(push_i && full));
  fifo_underflow_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !(pop_i && empty));
  `endif

  assign valid_o = !empty;
  assign rdata_o = mem_q[rptr_q[PtrW-1:0]];
  assign full_o  = full;
  assign count_o = wptr_q - rptr_q;

endmodule
