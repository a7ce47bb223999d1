// mw_cmd: the command port of mw_accel. Decodes the 64-bit command words (valid/ready,
// cmd_last_i on a command's last word) into the two in-order queues, DMA commands
// (load-input, load-weight, load-psum, spill-psum, store-output) and compute commands, and
// holds the per-layer registers CONFIG sets (dataflow, fold order, PE use, stride, store shift,
// the DMA port's burst descriptors). A command's last word is taken only when its queue has
// room. The word formats are in rtl/README.md.
module mw_cmd #(
  parameter int unsigned Rows     = 4,  // array rows (CONFIG's PE rows are checked against it)
  parameter int unsigned Cols     = 4,  // array columns
  parameter int unsigned DmaDepth = 8,  // DMA queue entries
  parameter int unsigned CmpDepth = 4   // compute queue entries
) (
  input  logic                          clk_i,
  input  logic                          rst_ni,

  // Command words (mw_accel's port).
  input  logic                          cmd_valid_i,
  output logic                          cmd_ready_o,
  input  logic [63:0]                   cmd_data_i,
  input  logic                          cmd_last_i,

  // Queue heads.
  output logic                          dma_valid_o,
  output logic [447:0]                  dma_head_o,
  input  logic                          dma_pop_i,
  output logic [$clog2(DmaDepth+1)-1:0] dma_count_o,
  output logic                          cmp_valid_o,
  output logic [319:0]                  cmp_head_o,
  input  logic                          cmp_pop_i,
  output logic [$clog2(CmpDepth+1)-1:0] cmp_count_o,

  // Layer configuration (CONFIG).
  output logic                          cfg_os_o,      // output-stationary
  output logic                          cfg_is_o,      // input-stationary
  output logic                          cfg_co_o,      // fold order: cols outer
  output logic                          cfg_bursts_o,  // DMA commands carry burst descriptors
  output logic [15:0]                   cfg_pr_o,      // PE rows a fold may use
  output logic [15:0]                   cfg_pc_o,      // PE columns a fold may use
  output logic [15:0]                   cfg_stride_o,  // layer stride
  output logic [4:0]                    cfg_shift_o,   // store shift

  // Decoder state (register port).
  output logic [3:0]                    op_o,          // opcode of the command in progress
  output logic [2:0]                    wcnt_o,        // its words received
  output logic                          err_o          // sticky: a malformed command
);


  localparam logic [3:0] OpConfig  = 4'd1;
  localparam logic [3:0] OpLoadIn  = 4'd2;
  localparam logic [3:0] OpStore   = 4'd6;
  localparam logic [3:0] OpCompute = 4'd7;

  // -------------------------------------------------------------------------------------------
  // Command decoder
  // -------------------------------------------------------------------------------------------
  logic [2:0]       wcnt_q;               // words of the current command received
  logic [3:0]       op_q;                 // its opcode
  logic [6*64-1:0]  w_q;                  // words 0..5 (the last word comes from the port)
  logic [2:0]       nwords;               // words of the current command
  logic [3:0]       cur_op;
  logic             is_last, fire;
  logic             dma_full, cmp_full, dma_push, cmp_push;
  logic             dec_err_q;
  logic             cfg_os_q, cfg_co_q, cfg_is_q;
  logic             cfg_bursts_q;         // DMA commands carry burst descriptors
  logic [15:0]      cfg_pr_q, cfg_pc_q, cfg_stride_q;
  logic [4:0]       cfg_shift_q;

  assign cur_op  = (wcnt_q == '0) ? cmd_data_i[3:0] : op_q;
  always_comb begin
    unique case (cur_op)
      OpConfig:  nwords = 3'd2;
      OpCompute: nwords = 3'd5;
      default:   nwords = (cur_op >= OpLoadIn && cur_op <= OpStore) ? (cfg_bursts_q ? 3'd7 : 3'd2) :
                                                                     3'd1;
    endcase
  end
  assign is_last     = (wcnt_q + 3'd1 == nwords);
  assign cmd_ready_o = !is_last || (cur_op == OpConfig) ||
                       ((cur_op == OpCompute) ? !cmp_full :
                        (cur_op >= OpLoadIn && cur_op <= OpStore) ? !dma_full : 1'b1);
  assign fire        = cmd_valid_i && cmd_ready_o;
  assign dma_push    = fire && is_last && (cur_op >= OpLoadIn) && (cur_op <= OpStore);
  assign cmp_push    = fire && is_last && (cur_op == OpCompute);

  // Next state written in the clocked block: every register moves only with a word taken.
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      wcnt_q       <= '0;
      op_q         <= '0;
      w_q          <= '0;
      dec_err_q    <= 1'b0;
      cfg_os_q     <= 1'b0;
      cfg_is_q     <= 1'b0;
      cfg_co_q     <= 1'b0;
      cfg_bursts_q <= 1'b0;
      cfg_pr_q     <= 16'(Rows);
      cfg_pc_q     <= 16'(Cols);
      cfg_stride_q <= 16'd1;
      cfg_shift_q  <= '0;
    end else if (fire) begin
      if (wcnt_q == '0) begin
        op_q <= cmd_data_i[3:0];
      end
      if (wcnt_q < 3'd6) begin
        w_q[wcnt_q*64 +: 64] <= cmd_data_i;
      end
      if (cmd_last_i != is_last) begin
        dec_err_q <= 1'b1;  // the driver's framing disagrees with the opcode's length
      end
      if (is_last) begin
        wcnt_q <= '0;
        if (nwords == 3'd1) begin
          dec_err_q <= 1'b1;  // unknown opcode
        end
        if (cur_op == OpConfig) begin
          cfg_os_q     <= w_q[4];
          cfg_co_q     <= w_q[5];
          cfg_is_q     <= w_q[6];
          cfg_bursts_q <= w_q[7];
          cfg_pr_q     <= cmd_data_i[15:0];
          cfg_pc_q     <= cmd_data_i[31:16];
          cfg_stride_q <= cmd_data_i[47:32];
          cfg_shift_q  <= cmd_data_i[52:48];
          if ((w_q[4] && w_q[6]) ||  // OS and IS at once
              cmd_data_i[15:0] == '0 || 32'(cmd_data_i[15:0]) > Rows ||
              cmd_data_i[31:16] == '0 || 32'(cmd_data_i[31:16]) > Cols ||
              cmd_data_i[47:32] == '0) begin
            dec_err_q <= 1'b1;
          end
        end
      end else begin
        wcnt_q <= wcnt_q + 3'd1;
      end
    end
  end

  // -------------------------------------------------------------------------------------------
  // Queues
  // -------------------------------------------------------------------------------------------
  logic [447:0] dma_wdata;

  // A DMA entry: words 0 and 1 (packed port) or words 0..6 (bursts port: the descriptor).
  assign dma_wdata = cfg_bursts_q ? {cmd_data_i, w_q} :
                                    {320'd0, cmd_data_i, w_q[0 +: 64]};
  mw_fifo #(
    .Width (448),
    .Depth (DmaDepth)
  ) u_dma_q (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .push_i  (dma_push),
    .wdata_i (dma_wdata),
    .pop_i   (dma_pop_i),
    .valid_o (dma_valid_o),
    .rdata_o (dma_head_o),
    .full_o  (dma_full),
    .count_o (dma_count_o)
  );

  mw_fifo #(
    .Width (320),
    .Depth (CmpDepth)
  ) u_cmp_q (
    .clk_i   (clk_i),
    .rst_ni  (rst_ni),
    .push_i  (cmp_push),
    .wdata_i ({cmd_data_i, w_q[255:0]}),
    .pop_i   (cmp_pop_i),
    .valid_o (cmp_valid_o),
    .rdata_o (cmp_head_o),
    .full_o  (cmp_full),
    .count_o (cmp_count_o)
  );

  assign cfg_os_o     = cfg_os_q;
  assign cfg_is_o     = cfg_is_q;
  assign cfg_co_o     = cfg_co_q;
  assign cfg_bursts_o = cfg_bursts_q;
  assign cfg_pr_o     = cfg_pr_q;
  assign cfg_pc_o     = cfg_pc_q;
  assign cfg_stride_o = cfg_stride_q;
  assign cfg_shift_o  = cfg_shift_q;
  assign op_o         = op_q;
  assign wcnt_o       = wcnt_q;
  assign err_o        = dec_err_q;

endmodule
