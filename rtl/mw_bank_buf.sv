// mw_bank_buf: an on-chip buffer built from Banks single-read, single-write SRAM macros
// (mw_sram), with lane arbitration for a row of reads and a row of writes per cycle.
//
// Word a lives in bank (a mod Banks) at row (a >> RowShift), where 2^RowShift is the largest
// power of two not above Banks (16 for 17 banks): consecutive words fall into consecutive
// banks, and with a prime number of banks (17 for 16 lanes) lanes a constant stride apart fall
// into distinct banks unless the stride is a multiple of Banks (rtl/README.md "Banked
// buffers"). The 2^RowShift words of one row lie in distinct banks, so (bank, row) is unique;
// the row is a shift, no divider (the bank is a constant modulo, a small adder tree). The
// price: each macro holds Depth / 2^RowShift words, so the banks hold Banks / 2^RowShift of the
// capacity (17/16 for 17 banks; the surplus words are never addressed).
// A requester presents a row of lane accesses (rd_req_i with the lanes in rd_en_i and their
// addresses) and holds it unchanged until the buffer grants it. In every
// cycle each bank serves the lowest-numbered lane of the row that still waits for it; the row is
// granted (rd_gnt_o) in the cycle its last lanes are served. A row therefore takes as many
// cycles as the largest number of its lanes in one bank: one cycle without a conflict, and one
// stall cycle (rd_stall_cnt_o) per further lane in the busiest bank. Lanes do not share a read:
// two lanes at one address are served one after the other like any two lanes of one bank.
// Read data is registered (the macros'): rd_valid_o is set in the cycle after the grant and
// rd_data_o then holds every enabled lane's word (lanes served in earlier cycles of the row
// from a holding register, the others straight from their bank). Disabled lanes read zero.
// Writes arbitrate the same way on the macros' write ports (wr_gnt_o, wr_stall_cnt_o); a
// write takes effect at the edge of the cycle its lane is served, so of two lanes of one row
// at one address the higher-numbered lane's word remains. A read and a write of one bank in one
// cycle use the macro's two ports; a read then returns the word from before the write.
// Combinational: the grants (from the row's addresses). Registered: read data, the served-lane
// masks and the counters. Latency: a conflict-free read row's data one cycle after its request.
module mw_bank_buf #(
  parameter int unsigned Depth   = 1024,  // words
  parameter int unsigned Width   = 8,     // bits per word
  parameter int unsigned Banks   = 17,    // SRAM macros, 1..128
  parameter int unsigned RdPorts = 4,     // read lanes
  parameter int unsigned WrPorts = 4,     // write lanes
  // 1: every write row is linear (lane l at wr_addr_i[0] + l, the enabled lanes a prefix; a
  // DMA beat): WrPorts <= Banks consecutive words fall into distinct banks, so a write row is
  // never arbitrated; it is rotated onto the banks and granted at once (checked by
  // bank_wr_linear_a). 0: write lanes at any address, arbitrated like the reads.
  parameter int unsigned WrLinear = 0,
  localparam int unsigned AW  = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned RowShift = $clog2(Banks + 1) - 1,  // 2^RowShift <= Banks
  localparam int unsigned BD  = (Depth + (1 << RowShift) - 1) >> RowShift,  // words per bank
  localparam int unsigned BAW = (BD > 1) ? $clog2(BD) : 1,
  localparam int unsigned BW  = (Banks > 1) ? $clog2(Banks) : 1
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  // Read row.
  input  logic                            rd_req_i,    // a row is presented (held until granted)
  input  logic [RdPorts-1:0]              rd_en_i,     // its lanes
  input  logic [RdPorts-1:0][AW-1:0]      rd_addr_i,
  output logic                            rd_gnt_o,    // the row's last lanes are served now
  output logic                            rd_valid_o,  // the cycle after rd_gnt_o
  output logic [RdPorts-1:0][Width-1:0]   rd_data_o,   // the row's words while rd_valid_o
  // Write row.
  input  logic                            wr_req_i,
  input  logic [WrPorts-1:0]              wr_en_i,
  input  logic [WrPorts-1:0][AW-1:0]      wr_addr_i,
  input  logic [WrPorts-1:0][Width-1:0]   wr_data_i,
  output logic                            wr_gnt_o,
  // Stall cycles (a row presented and not granted), from reset.
  output logic [63:0]                     rd_stall_cnt_o,
  output logic [63:0]                     wr_stall_cnt_o
);

  if (Depth < 2) begin : gen_bad_depth
    $error("mw_bank_buf: Depth must be at least 2, got %0d", Depth);
  end
  if (Banks < 1 || Banks > 128) begin : gen_bad_banks
    $error("mw_bank_buf: Banks must be in 1..128, got %0d", Banks);
  end
  if (WrLinear > 1) begin : gen_bad_linear_value
    $error("mw_bank_buf: WrLinear must be 0 or 1, got %0d", WrLinear);
  end
  if (WrLinear != 0 && WrPorts > Banks) begin : gen_bad_linear
    $error("mw_bank_buf: WrLinear needs WrPorts <= Banks, got %0d > %0d", WrPorts, Banks);
  end

  // Bank and row of every read lane's address.
  logic [RdPorts-1:0][BW-1:0]  rd_bank;
  logic [RdPorts-1:0][BAW-1:0] rd_row;
  always_comb begin
    for (int unsigned l = 0; l < RdPorts; l++) begin
      rd_bank[l] = BW'(32'(rd_addr_i[l]) % Banks);
      rd_row[l]  = BAW'(32'(rd_addr_i[l]) >> RowShift);
    end
  end

  // Read arbitration: a waiting lane is served when no lower waiting lane of its row is in its
  // bank.
  logic [RdPorts-1:0] rd_done_q, rd_wait, rd_srv;
  always_comb begin
    rd_wait = rd_req_i ? (rd_en_i & ~rd_done_q) : '0;
    for (int unsigned l = 0; l < RdPorts; l++) begin
      rd_srv[l] = rd_wait[l];
      for (int unsigned m = 0; m < l; m++) begin
        if (rd_wait[m] && rd_bank[m] == rd_bank[l]) begin
          rd_srv[l] = 1'b0;
        end
      end
    end
  end
  assign rd_gnt_o = rd_req_i && ((rd_wait & ~rd_srv) == '0);

  // Read macro ports: each bank takes the lane served for it (at most one).
  logic [Banks-1:0]            b_rd_en, b_wr_en;
  logic [Banks-1:0][BAW-1:0]   b_rd_addr, b_wr_addr;
  logic [Banks-1:0][Width-1:0] b_rd_data, b_wr_data;
  always_comb begin
    b_rd_en   = '0;
    b_rd_addr = '0;
    for (int unsigned l = 0; l < RdPorts; l++) begin
      if (rd_srv[l]) begin
        b_rd_en[rd_bank[l]]   = 1'b1;
        b_rd_addr[rd_bank[l]] = rd_row[l];
      end
    end
  end

  // Writes.
  logic [WrPorts-1:0] wr_done_q, wr_wait, wr_srv;
  if (WrLinear != 0) begin : gen_wr_linear
    // A linear row: one bank decode (its first word's bank b0), then bank b takes lane
    // l = (b - b0) mod Banks, at the row of word wr_addr_i[0] + l (an add and a shift per bank).
    logic [BW-1:0] b0;
    always_comb begin
      b0      = BW'(32'(wr_addr_i[0]) % Banks);
      wr_wait = wr_req_i ? (wr_en_i & ~wr_done_q) : '0;
      wr_srv  = wr_wait;
    end
    assign wr_gnt_o = wr_req_i;
    always_comb begin
      b_wr_en   = '0;
      b_wr_addr = '0;
      b_wr_data = '0;
      for (int unsigned b = 0; b < Banks; b++) begin
        automatic int unsigned l = (b >= 32'(b0)) ? b - 32'(b0) : b + Banks - 32'(b0);
        if (l < WrPorts && wr_srv[l]) begin
          b_wr_en[b]   = 1'b1;
          b_wr_addr[b] = BAW'((32'(wr_addr_i[0]) + l) >> RowShift);
          b_wr_data[b] = wr_data_i[l];
        end
      end
    end
    // The row is linear: every enabled lane at the first lane's address plus its number, and
    // the enabled lanes a prefix.
    for (genvar l = 1; l < WrPorts; l++) begin : gen_lin
      bank_wr_linear_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
          (wr_req_i && wr_en_i[l]) |->
          (wr_en_i[l-1] && 32'(wr_addr_i[l]) == 32'(wr_addr_i[0]) + l));
    end
  end else begin : gen_wr_arb
    // Any addresses: arbitrated like the reads.
    logic [WrPorts-1:0][BW-1:0]  wr_bank;
    logic [WrPorts-1:0][BAW-1:0] wr_row;
    always_comb begin
      for (int unsigned l = 0; l < WrPorts; l++) begin
        wr_bank[l] = BW'(32'(wr_addr_i[l]) % Banks);
        wr_row[l]  = BAW'(32'(wr_addr_i[l]) >> RowShift);
      end
    end
    always_comb begin
      wr_wait = wr_req_i ? (wr_en_i & ~wr_done_q) : '0;
      for (int unsigned l = 0; l < WrPorts; l++) begin
        wr_srv[l] = wr_wait[l];
        for (int unsigned m = 0; m < l; m++) begin
          if (wr_wait[m] && wr_bank[m] == wr_bank[l]) begin
            wr_srv[l] = 1'b0;
          end
        end
      end
    end
    assign wr_gnt_o = wr_req_i && ((wr_wait & ~wr_srv) == '0);
    always_comb begin
      b_wr_en   = '0;
      b_wr_addr = '0;
      b_wr_data = '0;
      for (int unsigned l = 0; l < WrPorts; l++) begin
        if (wr_srv[l]) begin
          b_wr_en[wr_bank[l]]   = 1'b1;
          b_wr_addr[wr_bank[l]] = wr_row[l];
          b_wr_data[wr_bank[l]] = wr_data_i[l];
        end
      end
    end
    for (genvar l = 1; l < WrPorts; l++) begin : gen_wr_excl
      for (genvar m = 0; m < l; m++) begin : gen_pair
        bank_wr_conflict_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
            !(wr_srv[l] && wr_srv[m] && wr_bank[l] == wr_bank[m]));
      end
    end
  end

  for (genvar b = 0; b < Banks; b++) begin : gen_bank
    mw_sram #(
      .Depth (BD < 2 ? 2 : BD),
      .Width (Width)
    ) u_sram (
      .clk_i     (clk_i),
      .rd_en_i   (b_rd_en[b]),
      .rd_addr_i ((BD < 2 ? 1 : BAW)'(b_rd_addr[b])),
      .rd_data_o (b_rd_data[b]),
      .wr_en_i   (b_wr_en[b]),
      .wr_addr_i ((BD < 2 ? 1 : BAW)'(b_wr_addr[b])),
      .wr_data_i (b_wr_data[b])
    );
  end

  // Read data: a lane served in the previous cycle reads its bank's register; earlier lanes of
  // the row were captured into the holding register when their word arrived.
  logic [RdPorts-1:0]            got_q;   // lane served in the previous cycle
  logic [RdPorts-1:0][BW-1:0]    gbank_q; // its bank
  logic [RdPorts-1:0][Width-1:0] hold_q;
  logic                          valid_q;
  logic [RdPorts-1:0]            en_q;    // lanes of the row granted in the previous cycle
  always_comb begin
    for (int unsigned l = 0; l < RdPorts; l++) begin
      if (!en_q[l]) begin
        rd_data_o[l] = '0;
      end else if (got_q[l]) begin
        rd_data_o[l] = b_rd_data[gbank_q[l]];
      end else begin
        rd_data_o[l] = hold_q[l];
      end
    end
  end
  assign rd_valid_o = valid_q;

  always_ff @(posedge clk_i) begin
    for (int unsigned l = 0; l < RdPorts; l++) begin
      if (got_q[l]) begin
        hold_q[l] <= b_rd_data[gbank_q[l]];
      end
    end
  end

  logic [63:0] rd_stall_q, wr_stall_q;
  always_ff @(posedge clk_i) begin
    if (!rst_ni) begin
      rd_done_q  <= '0;
      wr_done_q  <= '0;
      got_q      <= '0;
      gbank_q    <= '0;
      valid_q    <= 1'b0;
      en_q       <= '0;
      rd_stall_q <= '0;
      wr_stall_q <= '0;
    end else begin
      rd_done_q <= rd_gnt_o ? '0 : (rd_done_q | rd_srv);
      wr_done_q <= wr_gnt_o ? '0 : (wr_done_q | wr_srv);
      got_q     <= rd_srv;
      gbank_q   <= rd_bank;
      valid_q   <= rd_gnt_o;
      if (rd_gnt_o) begin
        en_q <= rd_en_i;
      end
      if (rd_req_i && !rd_gnt_o) begin
        rd_stall_q <= rd_stall_q + 64'd1;
      end
      if (wr_req_i && !wr_gnt_o) begin
        wr_stall_q <= wr_stall_q + 64'd1;
      end
    end
  end
  assign rd_stall_cnt_o = rd_stall_q;
  assign wr_stall_cnt_o = wr_stall_q;

  // Simulation-only checks (kept with --assert).
  // Handshake: a row presented and not granted is held unchanged in the next cycle.
  bank_rd_hold_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (rd_req_i && !rd_gnt_o) |=> (rd_req_i && $stable(rd_en_i) && $stable(rd_addr_i)));
  bank_wr_hold_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (wr_req_i && !wr_gnt_o) |=>
      (wr_req_i && $stable(wr_en_i) && $stable(wr_addr_i) && $stable(wr_data_i)));
  // Progress: every cycle with a waiting lane serves at least one, so a row of L lanes is
  // granted within L cycles.
  bank_rd_progress_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (rd_wait != '0) |-> (rd_srv != '0));
  bank_wr_progress_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (wr_wait != '0) |-> (wr_srv != '0));
  // Every enabled lane addresses a word of the buffer.
  for (genvar l = 0; l < RdPorts; l++) begin : gen_rd_range
    bank_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (rd_req_i && rd_en_i[l]) |-> (32'(rd_addr_i[l]) < Depth));
  end
  for (genvar l = 0; l < WrPorts; l++) begin : gen_wr_range
    bank_wr_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (wr_req_i && wr_en_i[l]) |-> (32'(wr_addr_i[l]) < Depth));
  end
  // No two lanes served in one cycle share a bank (one read and one write port per macro).
  for (genvar l = 1; l < RdPorts; l++) begin : gen_rd_excl
    for (genvar m = 0; m < l; m++) begin : gen_pair
      bank_rd_conflict_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
          !(rd_srv[l] && rd_srv[m] && rd_bank[l] == rd_bank[m]));
    end
  end
endmodule
