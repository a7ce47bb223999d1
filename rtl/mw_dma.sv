// mw_dma: the in-order DMA engine between the DRAM port and the on-chip buffers.
//
// Executes one DMA command at a time from the head of the DMA queue (entry = command words
// {w6..w0}, see rtl/README.md): load-input, load-weight and load-psum read bytes from DRAM into
// consecutive buffer entries from a base address; spill-psum and store-output read consecutive
// accumulator words from a base and send them to DRAM (spill: raw int32, 4 bytes per word;
// store: one byte per word, int8 = saturate(acc >>> shift)). Two DRAM ports, chosen by CONFIG:
//   - packed (bursts_i = 0): one request per command carrying its byte count; the DRAM side
//     gathers / scatters the tile's strided runs and streams them packed. The engine sees no
//     DRAM address.
//   - addressed bursts (bursts_i = 1): the command carries a descriptor (DRAM address of the
//     first run, run bytes, four loops of count and stride, loop 0 innermost) and the engine
//     generates the addresses: one burst request per run, one per cycle from the start cycle on,
//     with up to MaxBursts requested and not completed. Each burst's beats start at the run's
//     first byte (the port realigns), the last beat of a run is partial. The address of the next
//     run is a mixed-radix increment of four loop counters (one add per loop, no multiply).
//
// A command starts when the engine is idle and the completed-compute counter has reached the
// command's wait_cmp (and the completed-DMA counter its wait_dma). In its start cycle the engine
// issues its first DRAM request. Reads complete in the cycle of their last beat (a zero-byte read
// gets a single empty last beat); writes send their beats from the cycle after the start and
// complete in the cycle the DRAM acknowledges the last burst. The next command may start in the
// cycle after a completion, so back-to-back transfers leave no gap. done_now_o flags the
// completion combinationally in its cycle; done_cnt_o counts them (registered). A transfer
// therefore takes exactly latency + its beats (packed: ceil(bytes / BeatBytes); bursts: the sum
// over its runs of ceil(run / BeatBytes)) cycles when the DRAM model answers as described in
// rtl/README.md and at least latency + 1 bursts may be in flight.
module mw_dma #(
  parameter int unsigned BeatBytes  = 8,     // DRAM bytes per beat, a multiple of 4, 4..64
  parameter int unsigned InAW       = 16,    // input buffer address width (bytes)
  parameter int unsigned WtAW       = 16,    // weight buffer address width (bytes)
  parameter int unsigned AccAW      = 12,    // accumulator address width (words)
  parameter int unsigned MaxBursts  = 256,   // bursts requested and not completed, at most
  // 1: the accumulator is banked SRAM with registered reads (mw_bank_buf): spills and stores
  // read each beat's words in the cycle before the beat leaves (acc_rd_req_o, acc_rd_en_o; the
  // next beat's words while a beat is taken, else the current beat's again), so the beats
  // leave as they do from the multi-ported accumulator. 0: reads are combinational.
  parameter bit          AccRegRead = 1'b0,
  localparam int unsigned BeatWords = BeatBytes / 4,
  localparam int unsigned OW        = $clog2(MaxBursts + 1)
) (
  input  logic                             clk_i,
  input  logic                             rst_ni,

  // DMA queue head.
  input  logic                             cmd_valid_i,
  input  logic [447:0]                     cmd_i,
  output logic                             cmd_pop_o,    // the head starts (and leaves the queue)

  // Fences and configuration.
  input  logic [27:0]                      cmp_done_i,   // completed compute commands
  input  logic [4:0]                       shift_i,      // requantizing shift of stores
  input  logic                             bursts_i,     // addressed-burst DRAM port
  output logic [27:0]                      done_cnt_o,   // completed DMA commands
  output logic                             done_now_o,   // a DMA command completes this cycle
  output logic                             busy_o,       // a command is in flight

  // DRAM port.
  output logic                             dram_req_valid_o,
  output logic                             dram_req_write_o,
  output logic [31:0]                      dram_req_bytes_o,
  output logic [39:0]                      dram_req_addr_o,   // bursts port: first byte
  output logic [31:0]                      dram_req_id_o,
  input  logic                             dram_rd_valid_i,
  input  logic                             dram_rd_last_i,
  input  logic [BeatBytes*8-1:0]           dram_rd_data_i,
  output logic                             dram_wr_valid_o,
  input  logic                             dram_wr_ready_i,
  output logic [BeatBytes*8-1:0]           dram_wr_data_o,
  input  logic                             dram_wr_done_i,

  // Buffer ports.
  output logic [BeatBytes-1:0]             in_wr_en_o,
  output logic [BeatBytes*InAW-1:0]        in_wr_addr_o,
  output logic [BeatBytes*8-1:0]           in_wr_data_o,
  output logic [BeatBytes-1:0]             wt_wr_en_o,
  output logic [BeatBytes*WtAW-1:0]        wt_wr_addr_o,
  output logic [BeatBytes*8-1:0]           wt_wr_data_o,
  output logic [BeatWords-1:0]             acc_wr_en_o,
  output logic [BeatWords*AccAW-1:0]       acc_wr_addr_o,
  output logic [BeatWords*32-1:0]          acc_wr_data_o,
  output logic [BeatBytes*AccAW-1:0]       acc_rd_addr_o,
  input  logic [BeatBytes*32-1:0]          acc_rd_data_i,
  output logic                             acc_rd_req_o,   // AccRegRead: a read row
  output logic [BeatBytes-1:0]             acc_rd_en_o,    // its lanes

  // Counters (from reset): see the CntDma* indices in mw_accel.
  output logic [14*64-1:0]                 cnt_o,
  output logic                             err_o         // sticky protocol error
);

  if (BeatBytes < 4 || BeatBytes > 64 || (BeatBytes % 4) != 0) begin : gen_bad_beat
    $error("mw_dma: BeatBytes must be a multiple of 4 in 4..64, got %0d", BeatBytes);
  end
  if (MaxBursts < 1 || MaxBursts > 65535) begin : gen_bad_bursts
    $error("mw_dma: MaxBursts must be in 1..65535, got %0d", MaxBursts);
  end

  localparam logic [3:0] OpLoadIn   = 4'd2;
  localparam logic [3:0] OpLoadWt   = 4'd3;
  localparam logic [3:0] OpLoadPsum = 4'd4;
  localparam logic [3:0] OpSpill    = 4'd5;
  localparam logic [3:0] OpStore    = 4'd6;

  typedef enum logic [1:0] {
    StIdle,    // waiting for a command whose fences are met
    StRead,    // receiving beats
    StWrite,   // sending beats
    StWrWait   // all beats sent, waiting for the DRAM acknowledgement
  } state_e;

  // Head command fields.
  logic [3:0]  h_op;
  logic [27:0] h_wait_dma, h_wait_cmp;
  logic [31:0] h_bytes, h_base;
  assign h_op       = cmd_i[3:0];
  assign h_wait_dma = cmd_i[35:8];
  assign h_wait_cmp = cmd_i[63:36];
  assign h_bytes    = cmd_i[95:64];
  assign h_base     = cmd_i[127:96];

  // Burst descriptor of the head command (bursts port): word 2 = [39:0] DRAM address of the
  // first run, [63:40] run bytes; words 3..6 = loops 0..3, [15:0] count (>= 1), [55:16] stride.
  logic [39:0]      h_addr;
  logic [23:0]      h_run;
  logic [4*16-1:0]  h_cnt;
  logic [4*40-1:0]  h_stride;
  assign h_addr = cmd_i[167:128];
  assign h_run  = cmd_i[191:168];
  for (genvar k = 0; k < 4; k++) begin : gen_loops
    assign h_cnt[k*16 +: 16]    = cmd_i[192 + 64 * k +: 16];
    assign h_stride[k*40 +: 40] = cmd_i[208 + 64 * k +: 40];
  end

  // Next-state logic is written in the clocked block below (it depends on the DRAM inputs; a
  // simulator then evaluates it once per clock edge instead of with every input change).
  state_e      state_q;
  logic [3:0]  op_q;
  logic [31:0] bytes_q;             // total bytes
  logic [31:0] base_q;              // buffer base (bytes or words)
  logic [31:0] off_q;               // bytes moved so far
  logic [27:0] done_q;
  logic [31:0] id_q;                // commands started
  logic        err_q;
  logic [14*64-1:0]  cnt_q;

  // Bursts port: the request generator (the next run to request) and the data side.
  logic             bursts_q;       // the command runs on the bursts port
  logic [4*16-1:0]  gi_q, gc_q;     // loop indices and counts
  logic [4*40-1:0]  ga_q, gs_q;     // each loop's current start address; strides
  logic             gmore_q;        // runs left to request
  logic [23:0]      run_q;          // run bytes
  logic [23:0]      rr_q;           // bytes left in the run whose beats move now
  logic [OW-1:0]    out_q;          // bursts requested and not completed
  logic [31:0]      rq_q, dr_q;     // runs requested; runs whose write beats are all sent

  logic op_write;                   // the command in flight writes DRAM
  assign op_write = (op_q == OpSpill) || (op_q == OpStore);

  logic start, issue, req, rd_beat, wr_beat, done_now, run_end, burst_done;
  logic [31:0] remain, nb;          // bytes left; bytes in the current beat

  assign start    = (state_q == StIdle) && cmd_valid_i && (cmp_done_i >= h_wait_cmp) &&
                    (done_q >= h_wait_dma);
  assign issue    = (state_q != StIdle) && bursts_q && gmore_q && (32'(out_q) < MaxBursts);
  assign req      = start || issue;
  assign rd_beat  = (state_q == StRead) && dram_rd_valid_i;
  assign wr_beat  = dram_wr_valid_o && dram_wr_ready_i;
  assign remain   = bytes_q - off_q;
  always_comb begin
    nb = (remain < 32'(BeatBytes)) ? remain : 32'(BeatBytes);
    if (bursts_q && (32'(rr_q) < nb)) begin
      nb = 32'(rr_q);
    end
  end
  assign run_end    = (32'(rr_q) == nb);  // the beat moving now is its run's last
  assign burst_done = bursts_q && ((rd_beat && dram_rd_last_i) || dram_wr_done_i);
  always_comb begin
    if (!bursts_q) begin
      done_now = (rd_beat && dram_rd_last_i) || ((state_q == StWrWait) && dram_wr_done_i);
    end else begin
      done_now = (rd_beat && (off_q + nb == bytes_q)) ||
                 ((state_q == StWrWait) && dram_wr_done_i && (out_q == OW'(1)) && !gmore_q);
    end
  end

  // The run after the one requested now: the lowest loop that does not wrap steps by its stride,
  // the loops inside it restart at its new address. In the start cycle from the head's
  // descriptor, later from the generator's registers.
  logic [4*16-1:0]  src_i, src_c, nx_i;
  logic [4*40-1:0]  src_a, src_s, nx_a;
  logic             nx_more;
  always_comb begin
    if (start) begin
      src_i = '0;
      src_c = h_cnt;
      src_s = h_stride;
      for (int k = 0; k < 4; k++) begin
        src_a[k*40 +: 40] = h_addr;
      end
    end else begin
      src_i = gi_q;
      src_c = gc_q;
      src_s = gs_q;
      src_a = ga_q;
    end
    nx_i    = src_i;
    nx_a    = src_a;
    nx_more = 1'b0;
    for (int k = 0; k < 4; k++) begin
      if (!nx_more && ({1'b0, src_i[k*16 +: 16]} + 17'd1 < {1'b0, src_c[k*16 +: 16]})) begin
        nx_more  = 1'b1;
        nx_i[k*16 +: 16]  = src_i[k*16 +: 16] + 16'd1;
        nx_a[k*40 +: 40]  = src_a[k*40 +: 40] + src_s[k*40 +: 40];
        for (int j = 0; j < k; j++) begin
          nx_i[j*16 +: 16] = '0;
          nx_a[j*40 +: 40] = src_a[k*40 +: 40] + src_s[k*40 +: 40];
        end
      end
    end
  end

  // Buffer write lanes (loads): addresses and data follow the state and the beat, enables the
  // beat's valid.
  always_comb begin
    in_wr_en_o    = '0;
    wt_wr_en_o    = '0;
    acc_wr_en_o   = '0;
    for (int unsigned l = 0; l < BeatBytes; l++) begin
      in_wr_addr_o[l*InAW +: InAW] = InAW'(base_q + off_q + l);
      wt_wr_addr_o[l*WtAW +: WtAW] = WtAW'(base_q + off_q + l);
      in_wr_data_o[l*8 +: 8] = dram_rd_data_i[l*8 +: 8];
      wt_wr_data_o[l*8 +: 8] = dram_rd_data_i[l*8 +: 8];
      if (rd_beat && (l < nb)) begin
        in_wr_en_o[l] = (op_q == OpLoadIn);
        wt_wr_en_o[l] = (op_q == OpLoadWt);
      end
    end
    for (int unsigned l = 0; l < BeatWords; l++) begin
      acc_wr_addr_o[l*AccAW +: AccAW] = AccAW'(base_q + (off_q >> 2) + l);
      acc_wr_data_o[l*32 +: 32] = dram_rd_data_i[l*32 +: 32];
      acc_wr_en_o[l]   = rd_beat && (op_q == OpLoadPsum) && (4 * l < nb);
    end
  end

  // Accumulator read lanes (spills, stores). Combinational reads (AccRegRead = 0): the current
  // beat's words, addressed from the state. Registered reads: a read-ahead of the transfer's
  // beats into a queue of two formatted beats. A beat's words are requested (from the head
  // command in the start cycle, then from the read-ahead offset) while fewer than two beats are
  // requested and not yet sent; they arrive in the next cycle and leave from there, or from the
  // queue if the DRAM did not take the beat in front of them. The requests depend on registers
  // only (not on the DRAM's ready), and the queue keeps the beats leaving one per cycle from
  // the cycle after the start, as with combinational reads.
  logic [3:0]  ra_op;
  logic [31:0] ra_base, ra_off, ra_bytes, ra_nb;
  logic [23:0] ra_rr;
  logic        ra_req, ra_bursts;
  logic [31:0] pf_off_q;                  // bytes of the transfer whose words were requested
  logic [23:0] pf_rr_q;                   // bursts: bytes left in the run of the next request
  logic        pf_inf_q;                  // words requested in the previous cycle arrive now
  logic [1:0]  pf_cnt_q;                  // formatted beats held
  logic [BeatBytes*8-1:0] pf_h0_q, pf_h1_q;  // held beats, oldest first
  always_comb begin
    if (start) begin
      ra_op     = h_op;
      ra_base   = h_base;
      ra_off    = '0;
      ra_bytes  = h_bytes;
      ra_rr     = h_run;
      ra_bursts = bursts_i;
      ra_req    = AccRegRead && ((h_op == OpSpill) || (h_op == OpStore)) && (h_bytes != '0);
    end else begin
      ra_op     = op_q;
      ra_base   = base_q;
      ra_off    = AccRegRead ? pf_off_q : off_q;
      ra_bytes  = bytes_q;
      ra_rr     = pf_rr_q;
      ra_bursts = bursts_q;
      ra_req    = AccRegRead && (state_q == StWrite) && (pf_off_q < bytes_q) &&
                  (32'(pf_cnt_q) + 32'(pf_inf_q) < 32'd2);
    end
    // Bytes of the beat at ra_off (as nb for the beat that moves).
    ra_nb = (ra_bytes - ra_off < 32'(BeatBytes)) ? ra_bytes - ra_off : 32'(BeatBytes);
    if (ra_bursts && (32'(ra_rr) < ra_nb)) begin
      ra_nb = 32'(ra_rr);
    end
    acc_rd_addr_o = '0;
    acc_rd_en_o   = '0;
    for (int unsigned l = 0; l < BeatBytes; l++) begin
      if (ra_op == OpStore) begin
        acc_rd_addr_o[l*AccAW +: AccAW] = AccAW'(ra_base + ra_off + l);
        acc_rd_en_o[l]   = ra_req && (l < ra_nb);
      end else if (l < BeatWords) begin
        acc_rd_addr_o[l*AccAW +: AccAW] = AccAW'(ra_base + (ra_off >> 2) + l);
        acc_rd_en_o[l]   = ra_req && (4 * l < ra_nb);
      end
    end
  end
  assign acc_rd_req_o = ra_req;

  // A beat from accumulator words: stores one byte per word, requantized (saturate(acc >>>
  // shift) to int8), spills the raw words; lanes at or above `bytes` are zero.
  function automatic logic [BeatBytes*8-1:0] beat_of(input logic [BeatBytes*32-1:0] w,
                                                     input logic [3:0] op,
                                                     input logic [31:0] bytes);
    logic signed [31:0] sh;
    beat_of = '0;
    if (op == OpStore) begin
      for (int unsigned l = 0; l < BeatBytes; l++) begin
        sh = $signed(w[l*32 +: 32]) >>> shift_i;
        if (l < bytes) begin
          if (sh > 32'sd127) begin
            beat_of[l*8 +: 8] = 8'h7f;
          end else if (sh < -32'sd128) begin
            beat_of[l*8 +: 8] = 8'h80;
          end else begin
            beat_of[l*8 +: 8] = sh[7:0];
          end
        end
      end
    end else begin
      for (int unsigned l = 0; l < BeatWords; l++) begin
        if (4 * l < bytes) begin
          beat_of[l*32 +: 32] = w[l*32 +: 32];
        end
      end
    end
  endfunction

  // Write beat (spills, stores): combinational reads format the current beat's words; the
  // read-ahead offers the oldest held beat, else the beat whose words arrive now (its disabled
  // lanes read zero).
  logic [BeatBytes*8-1:0] pf_arr;  // the arriving beat, formatted
  logic                   wr_have; // a beat is ready to leave
  assign pf_arr = beat_of(acc_rd_data_i, op_q, 32'(BeatBytes));
  always_comb begin
    if (!AccRegRead) begin
      dram_wr_data_o = beat_of(acc_rd_data_i, op_q, nb);
      wr_have        = 1'b1;
    end else begin
      dram_wr_data_o = (pf_cnt_q != '0) ? pf_h0_q : pf_arr;
      wr_have        = (pf_cnt_q != '0) || pf_inf_q;
    end
  end

  // The read-ahead queue (registered reads only).
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      pf_off_q <= '0;
      pf_rr_q  <= '0;
      pf_inf_q <= 1'b0;
      pf_cnt_q <= '0;
      pf_h0_q  <= '0;
      pf_h1_q  <= '0;
    end else if (AccRegRead) begin
      pf_inf_q <= ra_req;
      if (ra_req) begin
        pf_off_q <= ra_off + ra_nb;
        pf_rr_q  <= (ra_bursts && 32'(ra_rr) == ra_nb) ? (start ? h_run : run_q) :
                                                         ra_rr - 24'(ra_nb);
      end else if (start) begin
        pf_off_q <= '0;
      end
      unique case (pf_cnt_q)
        2'd0: begin
          if (pf_inf_q && !wr_beat) begin
            pf_h0_q  <= pf_arr;
            pf_cnt_q <= 2'd1;
          end
        end
        2'd1: begin
          if (wr_beat && pf_inf_q) begin
            pf_h0_q <= pf_arr;
          end else if (wr_beat) begin
            pf_cnt_q <= 2'd0;
          end else if (pf_inf_q) begin
            pf_h1_q  <= pf_arr;
            pf_cnt_q <= 2'd2;
          end
        end
        default: begin
          if (wr_beat) begin
            pf_h0_q  <= pf_h1_q;
            pf_cnt_q <= 2'd1;
          end
        end
      endcase
    end
  end

  // The queue never overflows: a beat arrives only when fewer than two were held or in flight.
  `ifndef SYNTHESIS
  dma_acc_queue_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      !(pf_cnt_q == 2'd2 && pf_inf_q));
  `endif

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      state_q <= StIdle;
      op_q    <= '0;
      bytes_q <= '0;
      base_q  <= '0;
      off_q   <= '0;
      done_q  <= '0;
      id_q    <= '0;
      err_q   <= 1'b0;
      cnt_q   <= '0;
      bursts_q <= 1'b0;
      gi_q     <= '0;
      gc_q     <= '0;
      ga_q     <= '0;
      gs_q     <= '0;
      gmore_q  <= 1'b0;
      run_q    <= '0;
      rr_q     <= '0;
      out_q    <= '0;
      rq_q     <= '0;
      dr_q     <= '0;
    end else begin
      // Bursts port: the generator steps with every request; a burst completes with its last
      // read beat or its write acknowledgement.
      if (req) begin
        gi_q    <= nx_i;
        ga_q    <= nx_a;
        gmore_q <= nx_more && (start ? (bursts_i && (h_bytes != '0)) : 1'b1);
        rq_q    <= start ? 32'd1 : rq_q + 32'd1;
      end
      out_q <= out_q + OW'((start ? bursts_i : issue) ? 1 : 0) - OW'(burst_done ? 1 : 0);
      if ((rd_beat || wr_beat) && bursts_q) begin
        rr_q <= run_end ? run_q : rr_q - 24'(nb);
        if (wr_beat && run_end) begin
          dr_q <= dr_q + 32'd1;
        end
      end

      unique case (state_q)
        StIdle: begin
          if (start) begin
            op_q     <= h_op;
            bytes_q  <= h_bytes;
            base_q   <= h_base;
            off_q    <= '0;
            id_q     <= id_q + 32'd1;
            bursts_q <= bursts_i;
            gc_q     <= h_cnt;
            gs_q     <= h_stride;
            run_q    <= h_run;
            rr_q     <= h_run;
            dr_q     <= '0;
            if (bursts_i && ((h_run == '0) != (h_bytes == '0) || h_cnt[0 +: 16] == '0 ||
                             h_cnt[16 +: 16] == '0 || h_cnt[32 +: 16] == '0 ||
                             h_cnt[48 +: 16] == '0)) begin
              err_q <= 1'b1;  // a descriptor that moves nothing, or bytes without a run
            end
            if (h_op == OpSpill || h_op == OpStore) begin
              state_q <= (h_bytes == '0) ? StWrWait : StWrite;
            end else begin
              state_q <= StRead;
            end
            if (!(h_op == OpLoadIn || h_op == OpLoadWt || h_op == OpLoadPsum || h_op == OpSpill ||
                  h_op == OpStore)) begin
              err_q <= 1'b1;
            end
          end
        end
        StRead: begin
          if (rd_beat) begin
            off_q <= off_q + nb;
            if (done_now) begin
              state_q <= StIdle;
            end
            if (bursts_q ? (dram_rd_last_i != run_end) :
                           (dram_rd_last_i && (off_q + nb != bytes_q))) begin
              err_q <= 1'b1;  // the DRAM stream ended early or ran long
            end
          end
        end
        StWrite: begin
          if (wr_beat) begin
            off_q <= off_q + nb;
            if (off_q + nb >= bytes_q) begin
              state_q <= StWrWait;
            end
          end
        end
        StWrWait: begin
          if (done_now) begin
            state_q <= StIdle;
          end
        end
        default: state_q <= StIdle;
      endcase

      if ((state_q != StRead) && dram_rd_valid_i) begin
        err_q <= 1'b1;  // a beat nobody asked for
      end
      if (done_now) begin
        done_q <= done_q + 28'd1;
      end

      // Counters: 0..4 DRAM bytes by kind (input, weight, psum read, psum write, output),
      // 5..9 commands by kind (same order), 10 accumulator words read, 11 accumulator words
      // written, 12 busy cycles, 13 data-phase cycles without a beat (DRAM stalls).
      if (rd_beat || wr_beat) begin
        unique case (op_q)
          OpLoadIn:   cnt_q[0 +: 64] <= cnt_q[0 +: 64] + 64'(nb);
          OpLoadWt:   cnt_q[64 +: 64] <= cnt_q[64 +: 64] + 64'(nb);
          OpLoadPsum: cnt_q[128 +: 64] <= cnt_q[128 +: 64] + 64'(nb);
          OpSpill:    cnt_q[192 +: 64] <= cnt_q[192 +: 64] + 64'(nb);
          OpStore:    cnt_q[256 +: 64] <= cnt_q[256 +: 64] + 64'(nb);
          default: ;
        endcase
        if (op_q == OpLoadPsum) begin
          cnt_q[704 +: 64] <= cnt_q[704 +: 64] + 64'(nb[31:2]);
        end else if (op_q == OpSpill) begin
          cnt_q[640 +: 64] <= cnt_q[640 +: 64] + 64'(nb[31:2]);
        end else if (op_q == OpStore) begin
          cnt_q[640 +: 64] <= cnt_q[640 +: 64] + 64'(nb);
        end
      end
      if (done_now) begin
        unique case (op_q)
          OpLoadIn:   cnt_q[320 +: 64] <= cnt_q[320 +: 64] + 64'd1;
          OpLoadWt:   cnt_q[384 +: 64] <= cnt_q[384 +: 64] + 64'd1;
          OpLoadPsum: cnt_q[448 +: 64] <= cnt_q[448 +: 64] + 64'd1;
          OpSpill:    cnt_q[512 +: 64] <= cnt_q[512 +: 64] + 64'd1;
          OpStore:    cnt_q[576 +: 64] <= cnt_q[576 +: 64] + 64'd1;
          default: ;
        endcase
      end
      if (state_q != StIdle) begin
        cnt_q[768 +: 64] <= cnt_q[768 +: 64] + 64'd1;
      end
      if (((state_q == StRead) && !dram_rd_valid_i && (off_q != '0)) ||
          (dram_wr_valid_o && !dram_wr_ready_i)) begin
        cnt_q[832 +: 64] <= cnt_q[832 +: 64] + 64'd1;
      end
    end
  end

  assign cmd_pop_o        = start;  // a command starts as it leaves the queue
  assign busy_o           = (state_q != StIdle);
  assign done_cnt_o       = done_q;
  assign done_now_o       = done_now;
  assign dram_req_valid_o = req;
  assign dram_req_write_o = start ? ((h_op == OpSpill) || (h_op == OpStore)) : op_write;
  assign dram_req_bytes_o = start ? (bursts_i ? 32'(h_run) : h_bytes) : 32'(run_q);
  assign dram_req_addr_o  = start ? h_addr : ga_q[0 +: 40];
  assign dram_req_id_o    = start ? id_q : id_q - 32'd1;  // the command's index
  // Bursts port: a write beat leaves only once its run has been requested.
  assign dram_wr_valid_o  = (state_q == StWrite) && (!bursts_q || (dr_q < rq_q)) && wr_have;
  assign cnt_o            = cnt_q;
  assign err_o            = err_q;

  logic unused_flags;
  assign unused_flags = ^{cmd_i[7:4], cmd_i[255:248], cmd_i[319:312], cmd_i[383:376],
                          cmd_i[447:440]};  // flag bits and the strides' high bytes are unused

  // The write-data handshake (simulation only, kept with --assert): a beat offered and not taken
  // stays offered, unchanged, in the next cycle.
  `ifndef SYNTHESIS
  dram_wr_hold_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (dram_wr_valid_o && !dram_wr_ready_i) |=> (dram_wr_valid_o && $stable(dram_wr_data_o)));
  // The DRAM side's rules: read beats only for an outstanding read (err_q also records it, as
  // silicon would), the last-beat flag only with a beat, and a write acknowledgement only after
  // the write's last beat, for the one request outstanding.
  dram_rd_expected_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      dram_rd_valid_i |-> (state_q == StRead));
  dram_rd_last_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      dram_rd_last_i |-> dram_rd_valid_i);
  dram_wr_done_expected_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      dram_wr_done_i |-> (bursts_q ? (op_write && out_q != '0) : (state_q == StWrWait)));
  // Bursts port: a read burst's last beat is flagged exactly when its run ends, and no more
  // bursts are in flight than MaxBursts.
  dram_rd_burst_last_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      (rd_beat && bursts_q) |-> (dram_rd_last_i == run_end));
  dram_bursts_max_a: assert property (@(posedge clk_i) disable iff (!rst_ni)
      32'(out_q) <= MaxBursts);
  `endif

endmodule
