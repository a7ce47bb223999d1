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
// Writes arbitrate the same way on the macros' write ports (wr_gnt_o, wr_stall_cnt_o; with
// WrDirect a write row is served at once and its lanes must fall into distinct banks); a
// write takes effect at the edge of the cycle its lane is served, so of two lanes of one row
// at one address the higher-numbered lane's word remains. A read and a write of one bank in one
// cycle use the macro's two ports; a read then returns the word from before the write.
// With Sets = 2 the buffer has two sets of Banks macros split at word SetSplit (the banked
// accumulator: its two halves, which the compute and the DMA use at the same time, never share
// a macro); a word's bank and row are then taken within its set.
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
  // 1: the write row's lanes are served in their cycle without arbitration (wr_gnt_o follows
  // wr_req_i, no path from the addresses to the grant); the requester guarantees that its lanes
  // fall into distinct banks (the banked accumulator's result rows: consecutive words, or a
  // stride the driver checked), and bank_wr_conflict_a checks it. 0: arbitrated.
  parameter int unsigned WrDirect = 0,
  // 2: two sets of Banks macros each, words below SetSplit in set 0 and the others in set 1
  // (word a >= SetSplit at bank Banks + (a - SetSplit) mod Banks): requesters that work on the
  // two sides of SetSplit at once (the compute and the DMA on the two halves of the
  // double-buffered accumulator) never share a macro. 1: one set.
  parameter int unsigned Sets     = 1,
  parameter int unsigned SetSplit = Depth / 2,
  // Direct rows (the DMA's side of the banked accumulator), 0 = none: a read row of DRdPorts
  // and a write row of DWrPorts lanes whose lanes fall into distinct banks (consecutive words,
  // at most Banks), served in their cycle without arbitration. A direct read takes its banks
  // first (an arbitrated lane that wants one of them waits, counted as a stall); a direct write
  // must not meet a served arbitrated write in a bank (bank_wr_conflict_a).
  parameter int unsigned DRdPorts = 0,
  parameter int unsigned DWrPorts = 0,
  localparam int unsigned DR  = (DRdPorts > 0) ? DRdPorts : 1,
  localparam int unsigned DW  = (DWrPorts > 0) ? DWrPorts : 1,
  localparam int unsigned AW  = (Depth > 1) ? $clog2(Depth) : 1,
  localparam int unsigned RowShift = $clog2(Banks + 1) - 1,  // 2^RowShift <= Banks
  localparam int unsigned SetWords = (Sets > 1 && Depth - SetSplit > SetSplit) ?
                                     Depth - SetSplit : ((Sets > 1) ? SetSplit : Depth),
  localparam int unsigned BD  = (SetWords + (1 << RowShift) - 1) >> RowShift,  // words per bank
  localparam int unsigned BAW = (BD > 1) ? $clog2(BD) : 1,
  localparam int unsigned NB  = Sets * Banks,  // macros
  localparam int unsigned BW  = (NB > 1) ? $clog2(NB) : 1
) (
  input  logic                            clk_i,
  input  logic                            rst_ni,
  // Read row.
  input  logic                            rd_req_i,    // a row is presented (held until granted)
  input  logic [RdPorts-1:0]              rd_en_i,     // its lanes
  input  logic [RdPorts*AW-1:0]           rd_addr_i,
  output logic                            rd_gnt_o,    // the row's last lanes are served now
  output logic                            rd_valid_o,  // the cycle after rd_gnt_o
  output logic [RdPorts*Width-1:0]        rd_data_o,   // the row's words while rd_valid_o
  // Write row.
  input  logic                            wr_req_i,
  input  logic [WrPorts-1:0]              wr_en_i,
  input  logic [WrPorts*AW-1:0]           wr_addr_i,
  input  logic [WrPorts*Width-1:0]        wr_data_i,
  output logic                            wr_gnt_o,
  // Direct rows: read data the cycle after the request (disabled lanes zero).
  input  logic                            drd_req_i,
  input  logic [DR-1:0]                   drd_en_i,
  input  logic [DR*AW-1:0]                drd_addr_i,
  output logic [DR*Width-1:0]             drd_data_o,
  input  logic [DW-1:0]                   dwr_en_i,
  input  logic [DW*AW-1:0]                dwr_addr_i,
  input  logic [DW*Width-1:0]             dwr_data_i,
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
  if (Sets < 1 || Sets > 2 || (Sets == 2 && (SetSplit < 1 || SetSplit >= Depth))) begin : gen_bad_sets
    $error("mw_bank_buf: Sets must be 1 or 2 (2: SetSplit in 1..Depth-1), got %0d, %0d", Sets,
           SetSplit);
  end
  if (Sets == 2 && WrLinear != 0) begin : gen_bad_sets_linear
    $error("mw_bank_buf: WrLinear needs Sets = 1");
  end
  if (WrDirect > 1 || (WrDirect != 0 && WrLinear != 0)) begin : gen_bad_wr_direct
    $error("mw_bank_buf: WrDirect must be 0 or 1 and needs WrLinear = 0, got %0d", WrDirect);
  end
  if (DWrPorts != 0 && WrLinear != 0) begin : gen_bad_direct_linear
    $error("mw_bank_buf: direct write lanes need WrLinear = 0");
  end

  // Bank and row of a word: a constant modulo and a shift (two sets: a compare and a constant
  // subtraction first, giving the word's offset within its set). The arithmetic is as wide as an
  // address (and the bank count), not 32 bits: a synthesis tool builds a divider per modulo and
  // cannot narrow one whose dividend is a 32-bit difference (yosys ran out of memory on the
  // banked 16x16 accumulator's 104 such dividers; docs/synthesis.md).
  localparam int unsigned MW = (AW > 8) ? AW : 8;  // the modulo's width: an address or 128
  function automatic logic in_set1(input logic [AW-1:0] a);
    in_set1 = (Sets > 1) && (32'(a) >= SetSplit);
  endfunction
  function automatic logic [AW-1:0] set_off(input logic [AW-1:0] a);
    set_off = in_set1(a) ? a - AW'(SetSplit) : a;
  endfunction
  function automatic logic [BW-1:0] bank_of(input logic [AW-1:0] a);
    bank_of = BW'((in_set1(a) ? MW'(Banks) : MW'(0)) + MW'(set_off(a)) % MW'(Banks));
  endfunction
  function automatic logic [BAW-1:0] row_of(input logic [AW-1:0] a);
    row_of = BAW'(set_off(a) >> RowShift);
  endfunction

  // Bank and row of every lane's address, decoded in one vector: the read lanes, the direct
  // read lanes and, unless the write row is linear (WrLinear: one decode of its first word),
  // the write and direct write lanes.
  localparam int unsigned NDec = RdPorts + DR + ((WrLinear != 0) ? 0 : WrPorts + DW);
  logic [NDec*AW-1:0]          dec_addr;
  logic [NDec*BW-1:0]          dec_bank;
  logic [NDec*BAW-1:0]         dec_row;
  if (WrLinear != 0) begin : gen_dec_rd
    assign dec_addr = {drd_addr_i, rd_addr_i};
  end else begin : gen_dec_all
    assign dec_addr = {dwr_addr_i, wr_addr_i, drd_addr_i, rd_addr_i};
  end
  for (genvar l = 0; l < NDec; l++) begin : gen_dec
    assign dec_bank[l*BW +: BW]  = bank_of(dec_addr[l*AW +: AW]);
    assign dec_row[l*BAW +: BAW] = row_of(dec_addr[l*AW +: AW]);
  end
  logic [RdPorts*BW-1:0]       rd_bank;
  logic [RdPorts*BAW-1:0]      rd_row;
  assign rd_bank = dec_bank[0 +: RdPorts*BW];
  assign rd_row  = dec_row[0 +: RdPorts*BAW];

  // Arbitration of a row on the macros' ports of one direction (reads, and writes unless
  // WrLinear or WrDirect): a waiting lane is served when its bank is not in `taken` (banks
  // given to direct lanes) and no lower waiting lane of its row is in its bank (a
  // fixed-priority arbiter per bank: the banks the lower waiting lanes take, as a mask built
  // lane by lane). Lanes as wide as the wider row.
  localparam int unsigned MaxL = (RdPorts > WrPorts) ? RdPorts : WrPorts;
  function automatic logic [MaxL-1:0] served(input logic [MaxL-1:0] waits,
                                             input logic [MaxL*BW-1:0] banks,
                                             input logic [NB-1:0] taken);
    logic [NB-1:0] t;  // banks taken so far
    t = taken;
    for (int unsigned l = 0; l < MaxL; l++) begin
      served[l] = waits[l] && !t[banks[l*BW +: BW]];
      if (waits[l]) begin
        t[banks[l*BW +: BW]] = 1'b1;
      end
    end
  endfunction

  // Reads: the direct lanes take their banks first, then the row is arbitrated. Each bank's
  // macro takes the lane served for it (at most one). The macro port arrays are unpacked: a
  // simulator indexes them by bank directly.
  logic [RdPorts-1:0] rd_done_q, rd_wait, rd_srv;
  logic [NB-1:0]      rd_taken, b_rd_en;
  logic [BAW-1:0]     b_rd_addr [NB];
  logic [DR-1:0]      drd_on;
  logic [DR*BW-1:0]       drd_bank;
  logic [DR*BAW-1:0]      drd_row;
  assign drd_on   = (DRdPorts > 0 && drd_req_i) ? drd_en_i : '0;
  assign drd_bank = dec_bank[RdPorts*BW +: DR*BW];
  assign drd_row  = dec_row[RdPorts*BAW +: DR*BAW];
  always_comb begin
    rd_wait  = rd_req_i ? (rd_en_i & ~rd_done_q) : '0;
    rd_taken = '0;
    b_rd_en  = '0;
    for (int unsigned b = 0; b < NB; b++) begin
      b_rd_addr[b] = '0;
    end
    for (int unsigned l = 0; l < DR; l++) begin
      if (drd_on[l]) begin
        rd_taken[drd_bank[l*BW +: BW]]  = 1'b1;
        b_rd_en[drd_bank[l*BW +: BW]]   = 1'b1;
        b_rd_addr[drd_bank[l*BW +: BW]] = drd_row[l*BAW +: BAW];
      end
    end
    rd_srv = RdPorts'(served(MaxL'(rd_wait), (MaxL*BW)'(rd_bank), rd_taken));
    for (int unsigned l = 0; l < RdPorts; l++) begin
      if (rd_srv[l]) begin
        b_rd_en[rd_bank[l*BW +: BW]]   = 1'b1;
        b_rd_addr[rd_bank[l*BW +: BW]] = rd_row[l*BAW +: BAW];
      end
    end
  end
  assign rd_gnt_o = rd_req_i && ((rd_wait & ~rd_srv) == '0);

  logic [NB-1:0]      b_wr_en;
  logic [BAW-1:0]     b_wr_addr [NB];
  logic [Width-1:0]   b_rd_data [NB];
  logic [Width-1:0]   b_wr_data [NB];

  // Writes.
  logic [WrPorts-1:0] wr_done_q, wr_wait, wr_srv;
  if (WrLinear != 0) begin : gen_wr_linear
    // A linear row: one bank decode (its first word's bank b0), then bank b takes lane
    // l = (b - b0) mod Banks, at the row of word wr_addr_i[0] + l (an add and a shift per bank).
    logic [BW-1:0] b0;
    always_comb begin
      b0      = BW'(MW'(wr_addr_i[0 +: AW]) % MW'(Banks));
      wr_wait = wr_req_i ? (wr_en_i & ~wr_done_q) : '0;
      wr_srv  = wr_wait;
    end
    assign wr_gnt_o = wr_req_i;
    always_comb begin
      int unsigned l;  // the lane bank b takes
      b_wr_en = '0;
      for (int unsigned b = 0; b < Banks; b++) begin
        l = (b >= 32'(b0)) ? b - 32'(b0) : b + Banks - 32'(b0);
        b_wr_addr[b] = '0;
        b_wr_data[b] = '0;
        if (l < WrPorts && wr_srv[l]) begin
          b_wr_en[b]   = 1'b1;
          b_wr_addr[b] = BAW'((32'(wr_addr_i[0 +: AW]) + l) >> RowShift);
          b_wr_data[b] = wr_data_i[l*Width +: Width];
        end
      end
    end
    // The row is linear: every enabled lane at the first lane's address plus its number, and
    // the enabled lanes a prefix.
    logic unused_direct_wr;
    assign unused_direct_wr = ^{dwr_en_i, dwr_addr_i, dwr_data_i};
    `ifndef SYNTHESIS
    for (genvar l = 1; l < WrPorts; l++) begin : gen_lin
      bank_wr_linear_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
          (wr_req_i && wr_en_i[l]) |->
          (wr_en_i[l-1] && 32'(wr_addr_i[l*AW +: AW]) == 32'(wr_addr_i[0 +: AW]) + l));
    end
    `endif
  end else begin : gen_wr_arb
    // Any addresses: arbitrated like the reads, or (WrDirect) every lane served at once.
    logic [WrPorts*BW-1:0]       wr_bank;
    logic [WrPorts*BAW-1:0]      wr_row;
    logic [DW*BW-1:0]            dwr_bank;
    logic [DW*BAW-1:0]           dwr_row;
    assign wr_bank  = dec_bank[(RdPorts+DR)*BW +: WrPorts*BW];
    assign wr_row   = dec_row[(RdPorts+DR)*BAW +: WrPorts*BAW];
    assign dwr_bank = dec_bank[(RdPorts+DR+WrPorts)*BW +: DW*BW];
    assign dwr_row  = dec_row[(RdPorts+DR+WrPorts)*BAW +: DW*BAW];
    logic [DW-1:0] dwr_on;
    always_comb begin
      wr_wait  = wr_req_i ? (wr_en_i & ~wr_done_q) : '0;
      b_wr_en  = '0;
      for (int unsigned b = 0; b < NB; b++) begin
        b_wr_addr[b] = '0;
        b_wr_data[b] = '0;
      end
      wr_srv = (WrDirect != 0) ? wr_wait :
                                 WrPorts'(served(MaxL'(wr_wait), (MaxL*BW)'(wr_bank), '0));
      for (int unsigned l = 0; l < WrPorts; l++) begin
        if (wr_srv[l]) begin
          b_wr_en[wr_bank[l*BW +: BW]]   = 1'b1;
          b_wr_addr[wr_bank[l*BW +: BW]] = wr_row[l*BAW +: BAW];
          b_wr_data[wr_bank[l*BW +: BW]] = wr_data_i[l*Width +: Width];
        end
      end
      // Direct writes take their banks over (the arbitration above does not see them, so that
      // the arbitrated row's grant does not depend on them).
      for (int unsigned l = 0; l < DW; l++) begin
        dwr_on[l] = (DWrPorts > 0) && dwr_en_i[l];
        if (dwr_on[l]) begin
          b_wr_en[dwr_bank[l*BW +: BW]]   = 1'b1;
          b_wr_addr[dwr_bank[l*BW +: BW]] = dwr_row[l*BAW +: BAW];
          b_wr_data[dwr_bank[l*BW +: BW]] = dwr_data_i[l*Width +: Width];
        end
      end
    end
    assign wr_gnt_o = wr_req_i && (WrDirect != 0 || (wr_wait & ~wr_srv) == '0);
    // No two lanes written in one cycle share a bank, direct lanes included: as many banks
    // write as lanes are served.
    `ifndef SYNTHESIS
    bank_wr_conflict_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        $countones(wr_srv) + $countones(dwr_on) == $countones(b_wr_en));
    `endif
  end

  for (genvar b = 0; b < NB; b++) begin : gen_bank
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
  logic [RdPorts*BW-1:0]         gbank_q; // its bank
  logic [RdPorts*Width-1:0]      hold_q;
  logic                          valid_q;
  logic [RdPorts-1:0]            en_q;    // lanes of the row granted in the previous cycle
  always_comb begin
    for (int unsigned l = 0; l < RdPorts; l++) begin
      if (!en_q[l]) begin
        rd_data_o[l*Width +: Width] = '0;
      end else if (got_q[l]) begin
        rd_data_o[l*Width +: Width] = b_rd_data[gbank_q[l*BW +: BW]];
      end else begin
        rd_data_o[l*Width +: Width] = hold_q[l*Width +: Width];
      end
    end
  end
  assign rd_valid_o = valid_q;

  // Direct read data: each lane served in the previous cycle reads its bank's register.
  logic [DR-1:0]          dgot_q;
  logic [DR*BW-1:0]       dbank_q;
  always_comb begin
    for (int unsigned l = 0; l < DR; l++) begin
      drd_data_o[l*Width +: Width] = dgot_q[l] ? b_rd_data[dbank_q[l*BW +: BW]] : '0;
    end
  end

  always_ff @(posedge clk_i) begin
    for (int unsigned l = 0; l < RdPorts; l++) begin
      if (got_q[l]) begin
        hold_q[l*Width +: Width] <= b_rd_data[gbank_q[l*BW +: BW]];
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
      dgot_q     <= '0;
      dbank_q    <= '0;
      valid_q    <= 1'b0;
      en_q       <= '0;
      rd_stall_q <= '0;
      wr_stall_q <= '0;
    end else begin
      rd_done_q <= rd_gnt_o ? '0 : (rd_done_q | rd_srv);
      wr_done_q <= wr_gnt_o ? '0 : (wr_done_q | wr_srv);
      got_q     <= rd_srv;
      gbank_q   <= rd_bank;
      dgot_q    <= drd_on;
      dbank_q   <= drd_bank;
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
  `ifndef SYNTHESIS
  bank_rd_hold_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (rd_req_i && !rd_gnt_o) |=> (rd_req_i && $stable(rd_en_i) && $stable(rd_addr_i)));
  bank_wr_hold_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (wr_req_i && !wr_gnt_o) |=>
      (wr_req_i && $stable(wr_en_i) && $stable(wr_addr_i) && $stable(wr_data_i)));
  // Progress: every cycle with a waiting lane serves at least one, so a row of L lanes is
  // granted within L cycles.
  // (A direct read may take every bank the waiting lanes want in that cycle.)
  bank_rd_progress_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (rd_wait != '0 && drd_on == '0) |-> (rd_srv != '0));
  bank_wr_progress_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (wr_wait != '0) |-> (wr_srv != '0));
  // Every enabled lane addresses a word of the buffer.
  for (genvar l = 0; l < RdPorts; l++) begin : gen_rd_range
    bank_rd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (rd_req_i && rd_en_i[l]) |-> (32'(rd_addr_i[l*AW +: AW]) < Depth));
  end
  for (genvar l = 0; l < WrPorts; l++) begin : gen_wr_range
    bank_wr_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (wr_req_i && wr_en_i[l]) |-> (32'(wr_addr_i[l*AW +: AW]) < Depth));
  end
  // No two lanes served in one cycle share a bank (one read and one write port per macro).
  // (As many banks read as lanes are served.)
  bank_rd_conflict_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      $countones(rd_srv) + $countones(drd_on) == $countones(b_rd_en));
  // Every enabled direct lane addresses a word of the buffer.
  for (genvar l = 0; l < DR; l++) begin : gen_drd_range
    bank_drd_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        drd_on[l] |-> (32'(drd_addr_i[l*AW +: AW]) < Depth));
  end
  for (genvar l = 0; l < DW; l++) begin : gen_dwr_range
    bank_dwr_range_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        ((DWrPorts > 0) && dwr_en_i[l]) |-> (32'(dwr_addr_i[l*AW +: AW]) < Depth));
  end
  `endif
endmodule
