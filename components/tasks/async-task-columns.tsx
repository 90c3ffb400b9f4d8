"use client";
// The /task table's columns (spec §2 Task page, §4 statuses and platforms): Suno and video tasks,
// the channel for an admin only, failure reasons cut to one line.
import type { Column } from "@/components/data/paged-table";
import { ChannelTag, LongText, LookTag, MsTime, NoWrap, ProgressCell, SpendTime, TaskId } from "@/components/tasks/task-cells";
import type { AsyncTaskItem } from "@/lib/tasks/query";
import { taskActionLook, taskPlatformLook, taskStatusLook } from "@/lib/tasks/view";

export function asyncTaskColumns({ admin, now }: { admin: boolean; now: number }): Column<AsyncTaskItem>[] {
  return [
    { key: "submit", title: <NoWrap>提交时间</NoWrap>, render: (r) => <MsTime ms={r.submit_time} /> },
    { key: "finish", title: <NoWrap>结束时间</NoWrap>, render: (r) => <MsTime ms={r.finish_time} /> },
    {
      key: "progress",
      title: <NoWrap>进度</NoWrap>,
      render: (r) => <ProgressCell progress={r.progress} failed={r.status === "FAILURE"} />,
    },
    { key: "spend", title: <NoWrap>花费时间</NoWrap>, render: (r) => <SpendTime row={r} now={now} /> },
    ...(admin
      ? ([
          { key: "channel", title: <NoWrap>渠道</NoWrap>, render: (r) => <ChannelTag id={r.channel_id} /> },
        ] satisfies Column<AsyncTaskItem>[])
      : []),
    { key: "platform", title: <NoWrap>平台</NoWrap>, render: (r) => <LookTag look={taskPlatformLook(r.platform)} /> },
    { key: "action", title: <NoWrap>类型</NoWrap>, render: (r) => <LookTag look={taskActionLook(r.action)} /> },
    { key: "task_id", title: <NoWrap>任务ID</NoWrap>, render: (r) => <TaskId id={r.task_id} /> },
    { key: "status", title: <NoWrap>任务状态</NoWrap>, render: (r) => <LookTag look={taskStatusLook(r.status)} /> },
    { key: "fail_reason", title: <NoWrap>失败原因</NoWrap>, render: (r) => <LongText title="失败原因" text={r.fail_reason} /> },
  ];
}
