// mw_buffers: the input, weight and accumulator buffers of mw_accel between the compute
// controller (mw_compute, reads and result writes) and the DMA engine (mw_dma, beat writes and
// accumulator reads). BufBanks = 0: multi-ported arrays (mw_buf), every lane served in its
// cycle (a modelling simplification: no memory compiler builds them). BufBanks > 0: banked
// single-port SRAM macros (mw_bank_buf over mw_sram, "Banked buffers" in rtl/README.md).
module mw_buffers #(
  parameter int unsigned Cols        = 4,      // array columns (accumulator lanes)
  parameter int unsigned NL          = 4,      // input / weight read lanes: max(Rows, Cols)
  parameter int unsigned InBufBytes  = 16384,  // input buffer bytes
  parameter int unsigned WtBufBytes  = 16384,  // weight buffer bytes
  parameter int unsigned AccBufWords = 2048,   // accumulator int32 words
  parameter int unsigned BeatBytes   = 8,      // DRAM bytes per cycle
  parameter int unsigned BufBanks    = 0,      // 0: multi-ported; else banks
  // The buffers' address widths, $clog2 of their sizes, formed once in mw_accel.
  parameter int unsigned InAW        = 14,
  parameter int unsigned WtAW        = 14,
  parameter int unsigned AccAW       = 11,
  localparam int unsigned BeatWords = BeatBytes / 4
) (
  input  logic                        clk_i,
  input  logic                        rst_ni,

  // Compute reads of the input and weight buffers: a row of NL lanes. Banked: requested (req, the
  // lanes in en) and held until granted (gnt); the data comes with valid in the next cycle.
  // Multi-ported: the data follows the address in the same cycle.
  input  logic [NL*InAW-1:0]                cmp_in_addr_i,
  input  logic                              cmp_in_req_i,
  input  logic [NL-1:0]                     cmp_in_en_i,
  output logic [NL*8-1:0]                   cmp_in_data_o,
  output logic                              cmp_in_gnt_o,
  output logic                              cmp_in_valid_o,
  input  logic [NL*WtAW-1:0]                cmp_wt_addr_i,
  input  logic                              cmp_wt_req_i,
  input  logic [NL-1:0]                     cmp_wt_en_i,
  output logic [NL*8-1:0]                   cmp_wt_data_o,
  output logic                              cmp_wt_gnt_o,
  output logic                              cmp_wt_valid_o,

  // Compute side of the accumulator: the accumulate-in read row (like the operand rows) and the
  // result write row (banked: served in its cycle, wgnt).
  input  logic [Cols*AccAW-1:0]             cmp_acc_raddr_i,
  input  logic                              cmp_acc_rreq_i,
  input  logic [Cols-1:0]                   cmp_acc_ren_i,
  output logic [Cols*32-1:0]                cmp_acc_rdata_o,
  output logic                              cmp_acc_rgnt_o,
  output logic                              cmp_acc_rvalid_o,
  input  logic [Cols-1:0]                   cmp_acc_we_i,
  input  logic [Cols*AccAW-1:0]             cmp_acc_waddr_i,
  input  logic [Cols*32-1:0]                cmp_acc_wdata_i,
  input  logic                              cmp_acc_wreq_i,
  output logic                              cmp_acc_wgnt_o,

  // DMA side: a beat's byte writes into the input and weight buffers, its word writes into the
  // accumulator (psum reload) and its word reads from it (spill, store; banked: registered).
  input  logic [BeatBytes-1:0]              dma_in_we_i,
  input  logic [BeatBytes*InAW-1:0]         dma_in_addr_i,
  input  logic [BeatBytes*8-1:0]            dma_in_data_i,
  input  logic [BeatBytes-1:0]              dma_wt_we_i,
  input  logic [BeatBytes*WtAW-1:0]         dma_wt_addr_i,
  input  logic [BeatBytes*8-1:0]            dma_wt_data_i,
  input  logic [BeatWords-1:0]              dma_acc_we_i,
  input  logic [BeatWords*AccAW-1:0]        dma_acc_waddr_i,
  input  logic [BeatWords*32-1:0]           dma_acc_wdata_i,
  input  logic [BeatBytes*AccAW-1:0]        dma_acc_raddr_i,
  input  logic                              dma_acc_rreq_i,
  input  logic [BeatBytes-1:0]              dma_acc_ren_i,
  output logic [BeatBytes*32-1:0]           dma_acc_rdata_o,

  // Bank-conflict cycles (0 when multi-ported): input, weight and accumulator buffers.
  output logic [63:0]                       in_bank_stall_o,
  output logic [63:0]                       wt_bank_stall_o,
  output logic [63:0]                       acc_bank_stall_o
);

  if (BufBanks == 0) begin : gen_ported
    // Multi-ported arrays: every lane reads in the same cycle (a modelling simplification).
    mw_buf #(
      .Depth   (InBufBytes),
      .Width   (8),
      .RdPorts (NL),
      .WrPorts (BeatBytes)
    ) u_in_buf (
      .clk_i     (clk_i),
      .rd_addr_i (cmp_in_addr_i),
      .rd_data_o (cmp_in_data_o),
      .wr_en_i   (dma_in_we_i),
      .wr_addr_i (dma_in_addr_i),
      .wr_data_i (dma_in_data_i)
    );

    mw_buf #(
      .Depth   (WtBufBytes),
      .Width   (8),
      .RdPorts (NL),
      .WrPorts (BeatBytes)
    ) u_wt_buf (
      .clk_i     (clk_i),
      .rd_addr_i (cmp_wt_addr_i),
      .rd_data_o (cmp_wt_data_o),
      .wr_en_i   (dma_wt_we_i),
      .wr_addr_i (dma_wt_addr_i),
      .wr_data_i (dma_wt_data_i)
    );
    assign cmp_in_gnt_o    = 1'b0;
    assign cmp_in_valid_o  = 1'b0;
    assign cmp_wt_gnt_o    = 1'b0;
    assign cmp_wt_valid_o  = 1'b0;
    assign in_bank_stall_o = '0;
    assign wt_bank_stall_o = '0;
    logic unused_ported;
    assign unused_ported = ^{rst_ni, cmp_in_req_i, cmp_in_en_i, cmp_wt_req_i, cmp_wt_en_i,
                             cmp_acc_rreq_i, cmp_acc_ren_i, cmp_acc_wreq_i, dma_acc_rreq_i,
                             dma_acc_ren_i};

    mw_buf #(
      .Depth   (AccBufWords),
      .Width   (32),
      .RdPorts (Cols + BeatBytes),
      .WrPorts (Cols + BeatWords)
    ) u_acc_buf (
      .clk_i     (clk_i),
      .rd_addr_i ({dma_acc_raddr_i, cmp_acc_raddr_i}),
      .rd_data_o ({dma_acc_rdata_o, cmp_acc_rdata_o}),
      .wr_en_i   ({dma_acc_we_i, cmp_acc_we_i}),
      .wr_addr_i ({dma_acc_waddr_i, cmp_acc_waddr_i}),
      .wr_data_i ({dma_acc_wdata_i, cmp_acc_wdata_i})
    );
    assign cmp_acc_rgnt_o   = 1'b0;
    assign cmp_acc_rvalid_o = 1'b0;
    assign cmp_acc_wgnt_o   = 1'b0;
    assign acc_bank_stall_o = '0;
  end else begin : gen_banked
    // Banked SRAM: the DMA writes a beat of consecutive bytes (one per bank, granted at once:
    // BufBanks >= BeatBytes); the compute reads a row of lanes and stalls on bank conflicts.
    logic        in_wgnt, wt_wgnt;
    logic [63:0] in_wstall, wt_wstall;  // zero: a beat never waits (bank_dma_wr_a)
    logic [7:0]  in_drd_unused, wt_drd_unused;  // no direct rows
    logic        unused_wstall;
    assign unused_wstall = ^{in_wstall, wt_wstall, in_drd_unused, wt_drd_unused};
    mw_bank_buf #(
      .Depth   (InBufBytes),
      .Width   (8),
      .Banks   (BufBanks),
      .RdPorts (NL),
      .WrPorts (BeatBytes),
      .WrLinear(1)
    ) u_in_buf (
      .clk_i          (clk_i),
      .rst_ni         (rst_ni),
      .rd_req_i       (cmp_in_req_i),
      .rd_en_i        (cmp_in_en_i),
      .rd_addr_i      (cmp_in_addr_i),
      .rd_gnt_o       (cmp_in_gnt_o),
      .rd_valid_o     (cmp_in_valid_o),
      .rd_data_o      (cmp_in_data_o),
      .wr_req_i       (|dma_in_we_i),
      .wr_en_i        (dma_in_we_i),
      .wr_addr_i      (dma_in_addr_i),
      .wr_data_i      (dma_in_data_i),
      .wr_gnt_o       (in_wgnt),
      .drd_req_i      (1'b0),
      .drd_en_i       ('0),
      .drd_addr_i     ('0),
      .drd_data_o     (in_drd_unused),
      .dwr_en_i       ('0),
      .dwr_addr_i     ('0),
      .dwr_data_i     ('0),
      .rd_stall_cnt_o (in_bank_stall_o),
      .wr_stall_cnt_o (in_wstall)
    );

    mw_bank_buf #(
      .Depth   (WtBufBytes),
      .Width   (8),
      .Banks   (BufBanks),
      .RdPorts (NL),
      .WrPorts (BeatBytes),
      .WrLinear(1)
    ) u_wt_buf (
      .clk_i          (clk_i),
      .rst_ni         (rst_ni),
      .rd_req_i       (cmp_wt_req_i),
      .rd_en_i        (cmp_wt_en_i),
      .rd_addr_i      (cmp_wt_addr_i),
      .rd_gnt_o       (cmp_wt_gnt_o),
      .rd_valid_o     (cmp_wt_valid_o),
      .rd_data_o      (cmp_wt_data_o),
      .wr_req_i       (|dma_wt_we_i),
      .wr_en_i        (dma_wt_we_i),
      .wr_addr_i      (dma_wt_addr_i),
      .wr_data_i      (dma_wt_data_i),
      .wr_gnt_o       (wt_wgnt),
      .drd_req_i      (1'b0),
      .drd_en_i       ('0),
      .drd_addr_i     ('0),
      .drd_data_o     (wt_drd_unused),
      .dwr_en_i       ('0),
      .dwr_addr_i     ('0),
      .dwr_data_i     ('0),
      .rd_stall_cnt_o (wt_bank_stall_o),
      .wr_stall_cnt_o (wt_wstall)
    );

    // A DMA beat never waits for a bank (simulation only, kept with --assert).
    `ifndef SYNTHESIS
    bank_dma_wr_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
        (!(|dma_in_we_i) || in_wgnt) && (!(|dma_wt_we_i) || wt_wgnt));
    `endif

    // The accumulator: two sets of BufBanks single-read, single-write macros, one per half of
    // the double-buffered accumulator (words below AccBufWords / 2, the driver's second half's
    // base, and the others). The compute's accumulate-in reads are its arbitrated read row and
    // its result rows its write row, both Cols lanes a constant stride apart (1 for WS and OS;
    // the driver refuses an IS stride that would put two into one bank). The result rows are
    // written in their cycle without arbitration (WrDirect): no path runs from their addresses
    // to the mesh's advance, and bank_wr_conflict_a checks that their lanes never share a bank.
    // The DMA's spill / store reads and psum-reload writes are the direct rows (consecutive
    // words, at most BufBanks, one bank each), served in their cycle: the DMA cannot wait. The
    // schedule never has the compute and the DMA in one half at once (a half's store or spill
    // waits for its last compute, and its next compute for them), so their lanes fall into
    // different sets. Were an accumulate-in lane to meet a bank taken by a DMA read or by
    // another of its lanes, it would wait (counted in acc_bank_stall_o; the mesh waits for the
    // row); a result lane meeting a DMA write or another result lane trips bank_wr_conflict_a.
    logic [63:0] acc_rstall, acc_wstall;
    mw_bank_buf #(
      .Depth    (AccBufWords),
      .Width    (32),
      .Banks    (BufBanks),
      .RdPorts  (Cols),
      .WrPorts  (Cols),
      .WrLinear (0),
      .WrDirect (1),
      .Sets     (2),
      .SetSplit (AccBufWords / 2),
      .DRdPorts (BeatBytes),
      .DWrPorts (BeatWords)
    ) u_acc_buf (
      .clk_i          (clk_i),
      .rst_ni         (rst_ni),
      .rd_req_i       (cmp_acc_rreq_i),
      .rd_en_i        (cmp_acc_ren_i),
      .rd_addr_i      (cmp_acc_raddr_i),
      .rd_gnt_o       (cmp_acc_rgnt_o),
      .rd_valid_o     (cmp_acc_rvalid_o),
      .rd_data_o      (cmp_acc_rdata_o),
      .wr_req_i       (cmp_acc_wreq_i),
      .wr_en_i        (cmp_acc_we_i),
      .wr_addr_i      (cmp_acc_waddr_i),
      .wr_data_i      (cmp_acc_wdata_i),
      .wr_gnt_o       (cmp_acc_wgnt_o),
      .drd_req_i      (dma_acc_rreq_i),
      .drd_en_i       (dma_acc_ren_i),
      .drd_addr_i     (dma_acc_raddr_i),
      .drd_data_o     (dma_acc_rdata_o),
      .dwr_en_i       (dma_acc_we_i),
      .dwr_addr_i     (dma_acc_waddr_i),
      .dwr_data_i     (dma_acc_wdata_i),
      .rd_stall_cnt_o (acc_rstall),
      .wr_stall_cnt_o (acc_wstall)
    );
    assign acc_bank_stall_o = acc_rstall + acc_wstall;
  end

endmodule
