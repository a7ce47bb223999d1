// mw_accel: the mapwright accelerator top.
//
// A Rows x Cols int8 systolic array (mw_array, driven by mw_compute) with an input buffer and a
// weight buffer (bytes) and an int32 accumulator buffer, a DMA engine (mw_dma) to a DRAM port,
// a narrow command port and a register read port. Commands arrive as 64-bit words (valid/ready,
// cmd_last_i on a command's last word) and are decoded into two in-order queues: DMA commands
// (load-input, load-weight, load-psum, spill-psum, store-output) and compute commands (one
// tile-program step each). Each command carries fence counts wait_dma / wait_cmp: the number of
// DMA / compute commands that must have completed before it may start. The two engines run in
// parallel, so double-buffered loads overlap computation exactly as far as the fences allow.
// CONFIG sets the per-layer registers (dataflow, fold order, PE use, stride, store shift) and is
// only sent while the accelerator is idle. The word formats and the register map are in
// rtl/README.md.
// Registered: queues, engines and counters are registered; the register read port and idle_o
// are combinational.
module mw_accel #(
  parameter int unsigned Rows        = 4,       // array rows, 2..64
  parameter int unsigned Cols        = 4,       // array columns, 2..64
  parameter int unsigned InBufBytes  = 16384,   // input buffer bytes
  parameter int unsigned WtBufBytes  = 16384,   // weight buffer bytes
  parameter int unsigned AccBufWords = 2048,    // accumulator int32 words
  parameter int unsigned BeatBytes   = 8,       // DRAM bytes per cycle, multiple of 4
  parameter int unsigned DmaDepth    = 8,       // DMA queue entries
  parameter int unsigned CmpDepth    = 4,       // compute queue entries
  parameter int unsigned MaxBursts   = 256,     // bursts port: bursts in flight, 1..65535
  parameter int unsigned BufBanks    = 0,       // 0: multi-ported input / weight buffers;
                                                // else banks of mw_bank_buf, >= max lanes
  localparam int unsigned InAW  = $clog2(InBufBytes),
  localparam int unsigned WtAW  = $clog2(WtBufBytes),
  localparam int unsigned AccAW = $clog2(AccBufWords),
  localparam int unsigned BeatWords = BeatBytes / 4
) (
  input  logic                   clk_i,
  input  logic                   rst_ni,

  // Command words.
  input  logic                   cmd_valid_i,
  output logic                   cmd_ready_o,
  input  logic [63:0]            cmd_data_i,
  input  logic                   cmd_last_i,

  // DRAM: request, read stream, write stream, write acknowledgement.
  output logic                   dram_req_valid_o,
  output logic                   dram_req_write_o,
  output logic [31:0]            dram_req_bytes_o,
  output logic [39:0]            dram_req_addr_o,   // bursts port: the burst's first byte
  output logic [31:0]            dram_req_id_o,
  input  logic                   dram_rd_valid_i,
  input  logic                   dram_rd_last_i,
  input  logic [BeatBytes*8-1:0] dram_rd_data_i,
  output logic                   dram_wr_valid_o,
  input  logic                   dram_wr_ready_i,
  output logic [BeatBytes*8-1:0] dram_wr_data_o,
  input  logic                   dram_wr_done_i,

  // Register read port (parameters, counters, status), combinational.
  input  logic [7:0]             csr_addr_i,
  output logic [63:0]            csr_rdata_o,
  output logic                   idle_o          // no command queued, assembling or in flight
);

  if (Rows < 2 || Rows > 64) begin : gen_bad_rows
    $error("mw_accel: Rows must be in 2..64, got %0d", Rows);
  end
  if (Cols < 2 || Cols > 64) begin : gen_bad_cols
    $error("mw_accel: Cols must be in 2..64, got %0d", Cols);
  end
  if (BeatBytes < 4 || BeatBytes > 64 || (BeatBytes % 4) != 0) begin : gen_bad_beat
    $error("mw_accel: BeatBytes must be a multiple of 4 in 4..64, got %0d", BeatBytes);
  end
  if (InBufBytes < 64 || InBufBytes > (1 << 20)) begin : gen_bad_in
    $error("mw_accel: InBufBytes must be in 64..2^20, got %0d", InBufBytes);
  end
  if (WtBufBytes < 64 || WtBufBytes > (1 << 20)) begin : gen_bad_wt
    $error("mw_accel: WtBufBytes must be in 64..2^20, got %0d", WtBufBytes);
  end
  if (BufBanks != 0 && (BufBanks < ((Rows > Cols) ? Rows : Cols) || BufBanks < BeatBytes ||
                        BufBanks > 128)) begin : gen_bad_banks
    $error("mw_accel: BufBanks must be 0 or in max(Rows, Cols, BeatBytes)..128, got %0d",
           BufBanks);
  end
  if (AccBufWords < 16 || AccBufWords > (1 << 20)) begin : gen_bad_acc
    $error("mw_accel: AccBufWords must be in 16..2^20, got %0d", AccBufWords);
  end

  // -------------------------------------------------------------------------------------------
  // Command port: decoder, layer configuration, queues
  // -------------------------------------------------------------------------------------------
  logic         dma_valid, dma_pop, cmp_valid, cmp_pop;
  logic [447:0] dma_head;
  logic [319:0] cmp_head;
  logic [$clog2(DmaDepth+1)-1:0] dma_count;
  logic [$clog2(CmpDepth+1)-1:0] cmp_count;
  logic         cfg_os_q, cfg_is_q, cfg_co_q, cfg_bursts_q;  // u_cmd's registers
  logic [15:0]  cfg_pr_q, cfg_pc_q, cfg_stride_q;
  logic [4:0]   cfg_shift_q;
  logic [3:0]   op_q;
  logic [2:0]   wcnt_q;
  logic         dec_err_q;

  mw_cmd #(
    .Rows     (Rows),
    .Cols     (Cols),
    .DmaDepth (DmaDepth),
    .CmpDepth (CmpDepth)
  ) u_cmd (
    .clk_i        (clk_i),
    .rst_ni       (rst_ni),
    .cmd_valid_i  (cmd_valid_i),
    .cmd_ready_o  (cmd_ready_o),
    .cmd_data_i   (cmd_data_i),
    .cmd_last_i   (cmd_last_i),
    .dma_valid_o  (dma_valid),
    .dma_head_o   (dma_head),
    .dma_pop_i    (dma_pop),
    .dma_count_o  (dma_count),
    .cmp_valid_o  (cmp_valid),
    .cmp_head_o   (cmp_head),
    .cmp_pop_i    (cmp_pop),
    .cmp_count_o  (cmp_count),
    .cfg_os_o     (cfg_os_q),
    .cfg_is_o     (cfg_is_q),
    .cfg_co_o     (cfg_co_q),
    .cfg_bursts_o (cfg_bursts_q),
    .cfg_pr_o     (cfg_pr_q),
    .cfg_pc_o     (cfg_pc_q),
    .cfg_stride_o (cfg_stride_q),
    .cfg_shift_o  (cfg_shift_q),
    .op_o         (op_q),
    .wcnt_o       (wcnt_q),
    .err_o        (dec_err_q)
  );


  // -------------------------------------------------------------------------------------------
  // Buffers
  // -------------------------------------------------------------------------------------------
  // Compute read lanes of the input and weight buffers: Rows and Cols, swapped under IS.
  localparam int unsigned NL = (Rows > Cols) ? Rows : Cols;
  logic [NL*InAW-1:0]          cmp_in_addr;
  logic [NL*8-1:0]             cmp_in_data;
  logic [NL*WtAW-1:0]          cmp_wt_addr;
  logic [NL*8-1:0]             cmp_wt_data;
  logic [Cols*AccAW-1:0]       cmp_acc_raddr;
  logic [Cols*32-1:0]          cmp_acc_rdata;
  logic [Cols-1:0]             cmp_acc_we;
  logic [Cols*AccAW-1:0]       cmp_acc_waddr;
  logic [Cols*32-1:0]          cmp_acc_wdata;
  logic [BeatBytes-1:0]            dma_in_we, dma_wt_we;
  logic [BeatBytes*InAW-1:0]       dma_in_addr;
  logic [BeatBytes*WtAW-1:0]       dma_wt_addr;
  logic [BeatBytes*8-1:0]          dma_in_data, dma_wt_data;
  logic [BeatWords-1:0]            dma_acc_we;
  logic [BeatWords*AccAW-1:0]      dma_acc_waddr;
  logic [BeatWords*32-1:0]         dma_acc_wdata;
  logic [BeatBytes*AccAW-1:0]      dma_acc_raddr;
  logic [BeatBytes*32-1:0]         dma_acc_rdata;
  logic                            dma_acc_rreq;
  logic [BeatBytes-1:0]            dma_acc_ren;
  logic        cmp_acc_rreq, cmp_acc_rgnt, cmp_acc_rvalid, cmp_acc_wreq, cmp_acc_wgnt;
  logic [Cols-1:0] cmp_acc_ren;
  logic [63:0] acc_bank_stall;

  logic        cmp_in_req, cmp_in_gnt, cmp_in_valid, cmp_wt_req, cmp_wt_gnt, cmp_wt_valid;
  logic [NL-1:0] cmp_in_en, cmp_wt_en;
  logic [63:0] in_bank_stall, wt_bank_stall;

  mw_buffers #(
    .Cols        (Cols),
    .NL          (NL),
    .InBufBytes  (InBufBytes),
    .WtBufBytes  (WtBufBytes),
    .AccBufWords (AccBufWords),
    .BeatBytes   (BeatBytes),
    .BufBanks    (BufBanks),
    .InAW        (InAW),
    .WtAW        (WtAW),
    .AccAW       (AccAW)
  ) u_bufs (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .cmp_in_addr_i    (cmp_in_addr),
    .cmp_in_req_i     (cmp_in_req),
    .cmp_in_en_i      (cmp_in_en),
    .cmp_in_data_o    (cmp_in_data),
    .cmp_in_gnt_o     (cmp_in_gnt),
    .cmp_in_valid_o   (cmp_in_valid),
    .cmp_wt_addr_i    (cmp_wt_addr),
    .cmp_wt_req_i     (cmp_wt_req),
    .cmp_wt_en_i      (cmp_wt_en),
    .cmp_wt_data_o    (cmp_wt_data),
    .cmp_wt_gnt_o     (cmp_wt_gnt),
    .cmp_wt_valid_o   (cmp_wt_valid),
    .cmp_acc_raddr_i  (cmp_acc_raddr),
    .cmp_acc_rreq_i   (cmp_acc_rreq),
    .cmp_acc_ren_i    (cmp_acc_ren),
    .cmp_acc_rdata_o  (cmp_acc_rdata),
    .cmp_acc_rgnt_o   (cmp_acc_rgnt),
    .cmp_acc_rvalid_o (cmp_acc_rvalid),
    .cmp_acc_we_i     (cmp_acc_we),
    .cmp_acc_waddr_i  (cmp_acc_waddr),
    .cmp_acc_wdata_i  (cmp_acc_wdata),
    .cmp_acc_wreq_i   (cmp_acc_wreq),
    .cmp_acc_wgnt_o   (cmp_acc_wgnt),
    .dma_in_we_i      (dma_in_we),
    .dma_in_addr_i    (dma_in_addr),
    .dma_in_data_i    (dma_in_data),
    .dma_wt_we_i      (dma_wt_we),
    .dma_wt_addr_i    (dma_wt_addr),
    .dma_wt_data_i    (dma_wt_data),
    .dma_acc_we_i     (dma_acc_we),
    .dma_acc_waddr_i  (dma_acc_waddr),
    .dma_acc_wdata_i  (dma_acc_wdata),
    .dma_acc_raddr_i  (dma_acc_raddr),
    .dma_acc_rreq_i   (dma_acc_rreq),
    .dma_acc_ren_i    (dma_acc_ren),
    .dma_acc_rdata_o  (dma_acc_rdata),
    .in_bank_stall_o  (in_bank_stall),
    .wt_bank_stall_o  (wt_bank_stall),
    .acc_bank_stall_o (acc_bank_stall)
  );


  // -------------------------------------------------------------------------------------------
  // Engines
  // -------------------------------------------------------------------------------------------
  logic [27:0]       dma_done, cmp_done;
  logic              dma_done_now, cmp_done_now, dma_busy, cmp_busy;
  logic              dma_err, cmp_err;
  logic [14*64-1:0]  dma_cnt;
  logic [8*64-1:0]   cmp_cnt;

  mw_dma #(
    .BeatBytes (BeatBytes),
    .AccRegRead(BufBanks != 0),
    .MaxBursts (MaxBursts),
    .InAW      (InAW),
    .WtAW      (WtAW),
    .AccAW     (AccAW)
  ) u_dma (
    .clk_i            (clk_i),
    .rst_ni           (rst_ni),
    .cmd_valid_i      (dma_valid),
    .cmd_i            (dma_head),
    .cmd_pop_o        (dma_pop),
    .cmp_done_i       (cmp_done),
    .shift_i          (cfg_shift_q),
    .bursts_i         (cfg_bursts_q),
    .done_cnt_o       (dma_done),
    .done_now_o       (dma_done_now),
    .busy_o           (dma_busy),
    .dram_req_valid_o (dram_req_valid_o),
    .dram_req_write_o (dram_req_write_o),
    .dram_req_bytes_o (dram_req_bytes_o),
    .dram_req_addr_o  (dram_req_addr_o),
    .dram_req_id_o    (dram_req_id_o),
    .dram_rd_valid_i  (dram_rd_valid_i),
    .dram_rd_last_i   (dram_rd_last_i),
    .dram_rd_data_i   (dram_rd_data_i),
    .dram_wr_valid_o  (dram_wr_valid_o),
    .dram_wr_ready_i  (dram_wr_ready_i),
    .dram_wr_data_o   (dram_wr_data_o),
    .dram_wr_done_i   (dram_wr_done_i),
    .in_wr_en_o       (dma_in_we),
    .in_wr_addr_o     (dma_in_addr),
    .in_wr_data_o     (dma_in_data),
    .wt_wr_en_o       (dma_wt_we),
    .wt_wr_addr_o     (dma_wt_addr),
    .wt_wr_data_o     (dma_wt_data),
    .acc_wr_en_o      (dma_acc_we),
    .acc_wr_addr_o    (dma_acc_waddr),
    .acc_wr_data_o    (dma_acc_wdata),
    .acc_rd_addr_o    (dma_acc_raddr),
    .acc_rd_data_i    (dma_acc_rdata),
    .acc_rd_req_o     (dma_acc_rreq),
    .acc_rd_en_o      (dma_acc_ren),
    .cnt_o            (dma_cnt),
    .err_o            (dma_err)
  );

  mw_compute #(
    .Banked (BufBanks != 0),
    .Banks  ((BufBanks == 0) ? 1 : BufBanks),
    .Rows  (Rows),
    .Cols  (Cols),
    .InAW  (InAW),
    .WtAW  (WtAW),
    .AccAW (AccAW)
  ) u_compute (
    .clk_i         (clk_i),
    .rst_ni        (rst_ni),
    .cmd_valid_i   (cmp_valid),
    .cmd_i         (cmp_head),
    .cmd_pop_o     (cmp_pop),
    .os_i          (cfg_os_q),
    .is_i          (cfg_is_q),
    .cols_outer_i  (cfg_co_q),
    .pe_rows_i     (cfg_pr_q),
    .pe_cols_i     (cfg_pc_q),
    .stride_i      (cfg_stride_q),
    .dma_done_i    (dma_done),
    .done_cnt_o    (cmp_done),
    .done_now_o    (cmp_done_now),
    .busy_o        (cmp_busy),
    .in_rd_addr_o  (cmp_in_addr),
    .in_rd_data_i  (cmp_in_data),
    .in_rd_req_o   (cmp_in_req),
    .in_rd_en_o    (cmp_in_en),
    .in_rd_gnt_i   (cmp_in_gnt),
    .in_rd_valid_i (cmp_in_valid),
    .wt_rd_addr_o  (cmp_wt_addr),
    .wt_rd_data_i  (cmp_wt_data),
    .wt_rd_req_o   (cmp_wt_req),
    .wt_rd_en_o    (cmp_wt_en),
    .wt_rd_gnt_i   (cmp_wt_gnt),
    .wt_rd_valid_i (cmp_wt_valid),
    .acc_rd_addr_o (cmp_acc_raddr),
    .acc_rd_data_i (cmp_acc_rdata),
    .acc_rd_req_o  (cmp_acc_rreq),
    .acc_rd_en_o   (cmp_acc_ren),
    .acc_rd_gnt_i  (cmp_acc_rgnt),
    .acc_rd_valid_i(cmp_acc_rvalid),
    .acc_wr_en_o   (cmp_acc_we),
    .acc_wr_addr_o (cmp_acc_waddr),
    .acc_wr_data_o (cmp_acc_wdata),
    .acc_wr_req_o  (cmp_acc_wreq),
    .acc_wr_gnt_i  (cmp_acc_wgnt),
    .cnt_o         (cmp_cnt),
    .err_o         (cmp_err)
  );

  // -------------------------------------------------------------------------------------------
  // Timing registers: free-running cycle counter, first DMA start, last completion
  // -------------------------------------------------------------------------------------------
  logic [63:0] cyc_q, first_q, last_q;
  logic        started_q;
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      cyc_q     <= '0;
      first_q   <= '0;
      last_q    <= '0;
      started_q <= 1'b0;
    end else begin
      cyc_q <= cyc_q + 64'd1;
      if (dma_pop && !started_q) begin  // a DMA command starts as it leaves its queue
        started_q <= 1'b1;
        first_q   <= cyc_q;
      end
      if (dma_done_now || cmp_done_now) begin
        last_q <= cyc_q;
      end
    end
  end

  assign idle_o = !dma_valid && !cmp_valid && !dma_busy && !cmp_busy && (wcnt_q == '0);

  // -------------------------------------------------------------------------------------------
  // Register read port (map in rtl/README.md)
  // -------------------------------------------------------------------------------------------
  always_comb begin
    unique case (csr_addr_i)
      8'd0:  csr_rdata_o = 64'(Rows);
      8'd1:  csr_rdata_o = 64'(Cols);
      8'd2:  csr_rdata_o = 64'(InBufBytes);
      8'd3:  csr_rdata_o = 64'(WtBufBytes);
      8'd4:  csr_rdata_o = 64'(AccBufWords);
      8'd5:  csr_rdata_o = 64'(BeatBytes);
      8'd6:  csr_rdata_o = 64'h6d77_6163_6365_6c31;  // "mwaccel1"
      8'd7:  csr_rdata_o = {59'd0, cmp_err, dma_err, dec_err_q, idle_o, started_q};
      8'd8:  csr_rdata_o = cmp_cnt[0 +: 64];                // MACs
      8'd9:  csr_rdata_o = 64'(cmp_done);             // steps (compute commands done)
      8'd10: csr_rdata_o = cmp_cnt[64 +: 64];                // folds
      8'd11: csr_rdata_o = cmp_cnt[128 +: 64];                // input buffer reads
      8'd12: csr_rdata_o = dma_cnt[0 +: 64];                // input buffer writes
      8'd13: csr_rdata_o = cmp_cnt[192 +: 64];                // weight buffer reads
      8'd14: csr_rdata_o = dma_cnt[64 +: 64];                // weight buffer writes
      8'd15: csr_rdata_o = cmp_cnt[256 +: 64] + dma_cnt[640 +: 64];  // accumulator reads
      8'd16: csr_rdata_o = cmp_cnt[320 +: 64] + dma_cnt[704 +: 64];  // accumulator writes
      8'd17: csr_rdata_o = dma_cnt[0 +: 64];                // DRAM input bytes
      8'd18: csr_rdata_o = dma_cnt[64 +: 64];                // DRAM weight bytes
      8'd19: csr_rdata_o = dma_cnt[256 +: 64];                // DRAM output bytes
      8'd20: csr_rdata_o = dma_cnt[192 +: 64];                // DRAM psum bytes written
      8'd21: csr_rdata_o = dma_cnt[128 +: 64];                // DRAM psum bytes read
      8'd22: csr_rdata_o = dma_cnt[320 +: 64];                // input loads
      8'd23: csr_rdata_o = dma_cnt[384 +: 64];                // weight loads
      8'd24: csr_rdata_o = dma_cnt[448 +: 64];                // psum reloads
      8'd25: csr_rdata_o = dma_cnt[512 +: 64];                // psum spills
      8'd26: csr_rdata_o = dma_cnt[576 +: 64];                // output stores
      8'd27: csr_rdata_o = cmp_cnt[384 +: 64];                // array busy cycles
      8'd28: csr_rdata_o = cmp_cnt[448 +: 64];                // array stall cycles
      8'd29: csr_rdata_o = dma_cnt[768 +: 64];               // DMA busy cycles
      8'd30: csr_rdata_o = dma_cnt[832 +: 64];               // DRAM stall cycles
      8'd31: csr_rdata_o = cyc_q;                     // cycles since reset
      8'd32: csr_rdata_o = first_q;                   // cycle of the first DMA start
      8'd33: csr_rdata_o = last_q;                    // cycle of the last completion
      8'd34: csr_rdata_o = 64'(dma_done);             // DMA commands completed
      8'd35: csr_rdata_o = 64'(cmp_done);             // compute commands completed
      8'd36: csr_rdata_o = 64'(dma_count);            // DMA queue entries
      8'd37: csr_rdata_o = 64'(cmp_count);            // compute queue entries
      8'd38: csr_rdata_o = {56'd0, op_q, 1'b0, wcnt_q};  // decoder state
      8'd39: csr_rdata_o = 64'(MaxBursts);
      8'd40: csr_rdata_o = 64'(BufBanks);
      8'd41: csr_rdata_o = in_bank_stall;             // input buffer bank-conflict cycles
      8'd42: csr_rdata_o = wt_bank_stall;             // weight buffer bank-conflict cycles
      8'd43: csr_rdata_o = acc_bank_stall;            // accumulator bank-conflict cycles
      default: csr_rdata_o = '0;
    endcase
  end

  // Handshake rule of the command port (simulation only, kept with --assert): a word offered
  // and not taken stays offered, unchanged, in the next cycle. A host that breaks it would lose
  // or corrupt a command word; the SVA names the cycle instead.
  `ifndef SYNTHESIS
  cmd_hold_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (cmd_valid_i && !cmd_ready_o) |=>
          (cmd_valid_i && $stable(cmd_data_i) && $stable(cmd_last_i)));
  `endif

endmodule
