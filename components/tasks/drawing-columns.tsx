"use client";
// The /midjourney table's columns (spec §2 "Drawing (midjourney) page", §4 codes, statuses, actions): the channel
// for an admin only; the image behind 查看图片, prompts and failure reasons cut to one line.
import type { Column } from "@/components/data/paged-table";
import { ImagePreview } from "@/components/tasks/image-preview";
import { ChannelTag, LongText, LookTag, MsTime, NoWrap, ProgressCell, SpendTime, TaskId } from "@/components/tasks/task-cells";
import type { DrawingItem } from "@/lib/tasks/query";
import { drawingActionLook, drawingStatusLook, submitCodeLook } from "@/lib/tasks/view";

export function drawingColumns({ admin, now }: { admin: boolean; now: number }): Column<DrawingItem>[] {
  return [
    { key: "submit", title: <NoWrap>提交时间</NoWrap>, render: (r) => <MsTime ms={r.submit_time} /> },
    ...(admin
      ? ([
          { key: "channel", title: <NoWrap>渠道</NoWrap>, render: (r) => <ChannelTag id={r.channel_id} /> },
        ] satisfies Column<DrawingItem>[])
      : []),
    { key: "action", title: <NoWrap>类型</NoWrap>, render: (r) => <LookTag look={drawingActionLook(r.action)} /> },
    { key: "mj_id", title: <NoWrap>任务ID</NoWrap>, render: (r) => <TaskId id={r.mj_id} /> },
    { key: "code", title: <NoWrap>提交结果</NoWrap>, render: (r) => <LookTag look={submitCodeLook(r.code)} /> },
    { key: "status", title: <NoWrap>任务状态</NoWrap>, render: (r) => <LookTag look={drawingStatusLook(r.status)} /> },
    {
      key: "progress",
      title: <NoWrap>进度</NoWrap>,
      render: (r) => <ProgressCell progress={r.progress} failed={r.status === "FAILURE"} />,
    },
    { key: "spend", title: <NoWrap>花费时间</NoWrap>, render: (r) => <SpendTime row={r} now={now} /> },
    { key: "image", title: <NoWrap>结果图片</NoWrap>, render: (r) => <ImagePreview src={r.image_url} mjId={r.mj_id} /> },
    { key: "prompt", title: "Prompt", render: (r) => <LongText title="Prompt" text={r.prompt} /> },
    { key: "prompt_en", title: "PromptEn", render: (r) => <LongText title="PromptEn" text={r.prompt_en} /> },
    { key: "fail_reason", title: <NoWrap>失败原因</NoWrap>, render: (r) => <LongText title="失败原因" text={r.fail_reason} /> },
  ];
}
