// The drawing and async-task lists (spec §7: GET /api/mj/, /api/mj/self/, /api/task/,
// /api/task/self) on the real SQLite test database: rows seeded for two users on two channels,
// then read as an admin (every user, the channel filter) and as each user (their own rows, no
// channel); every filter, paging, the seconds-in-the-query against milliseconds-in-the-row range,
// and what never leaves: the vendor's image and result addresses, the charged key, the request id.
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/lib/db";
import { asyncTaskFiltersOf, drawingFiltersOf } from "@/lib/tasks/query";
import { call, createUser } from "@/tests/helpers/api";
import * as mjAll from "@/app/api/mj/route";
import * as mjSelf from "@/app/api/mj/self/route";
import * as taskAll from "@/app/api/task/route";
import * as taskSelf from "@/app/api/task/self/route";

type Caller = { id: number; cookie: string };
let admin: Caller;
let ann: Caller;
let ben: Caller;

const NOW_S = Math.floor(Date.now() / 1000);
const HOUR = 3600;
const DAY = 24 * HOUR;
/** A submit time in ms with a sub-second part, so the range's ms conversion is tested at the edge. */
const at = (secondsAgo: number) => (NOW_S - secondsAgo) * 1000 + 640;

const VENDOR_IMAGE = "https://cdn.vendor-mj.example/attachments/1/secret-grid.png";
const VENDOR_AUDIO = "https://cdn.vendor-suno.example/audio/9f.mp3";
const VENDOR_VIDEO = "https://videos.vendor.example/v/77/content.mp4";
/** The upstream a failure text names. */
const MJ_PROXY = "https://mj-proxy.internal.example/mj/submit/imagine";

type Drawing = { user: "ann" | "ben"; mj: string; channel: number; ago: number; image?: string; status: string; fail?: string };
const DRAWINGS: Drawing[] = [
  { user: "ann", mj: "mj-ann-old", channel: 1, ago: 40 * DAY, status: "SUCCESS", image: VENDOR_IMAGE },
  { user: "ann", mj: "mj-ann-2d", channel: 2, ago: 2 * DAY, status: "IN_PROGRESS" },
  { user: "ben", mj: "mj-ben-1h", channel: 2, ago: HOUR, status: "FAILURE", fail: `下载失败 ${MJ_PROXY} key sk-abcdef1234567890` },
  { user: "ann", mj: "mj-ann-10m", channel: 1, ago: 600, status: "SUCCESS", image: VENDOR_IMAGE },
];

type AsyncTask = { user: "ann" | "ben"; id: string; platform: string; action: string; channel: number; ago: number; data: string };
const TASKS: AsyncTask[] = [
  {
    user: "ann",
    id: "suno-ann-3d",
    platform: "suno",
    action: "MUSIC",
    channel: 3,
    ago: 3 * DAY,
    data: JSON.stringify([{ audio_url: VENDOR_AUDIO }]),
  },
  {
    user: "ben",
    id: "video-ben-2h",
    platform: "openai-video",
    action: "VIDEO",
    channel: 4,
    ago: 2 * HOUR,
    data: JSON.stringify({ url: VENDOR_VIDEO }),
  },
  { user: "ann", id: "suno-ann-5m", platform: "suno", action: "LYRICS", channel: 4, ago: 300, data: JSON.stringify({ text: "la la" }) },
];

beforeAll(async () => {
  const db = await getDb();
  admin = await createUser({ username: "tadmin", role: 10 });
  ann = await createUser({ username: "tann" });
  ben = await createUser({ username: "tben" });
  const ids = { ann: ann.id, ben: ben.id };
  for (const d of DRAWINGS) {
    await db.midjourney.create({
      data: {
        user_id: ids[d.user],
        mj_id: d.mj,
        channel_id: d.channel,
        action: "IMAGINE",
        code: 1,
        status: d.status,
        progress: d.status === "IN_PROGRESS" ? "45%" : "100%",
        prompt: `a cat for ${d.user}`,
        prompt_en: `a cat for ${d.user}`,
        submit_time: BigInt(at(d.ago)),
        finish_time: d.status === "IN_PROGRESS" ? 0n : BigInt(at(d.ago) + 30_000),
        image_url: d.image ?? "",
        fail_reason: d.fail ?? "",
        quota: 5000n,
        token_id: 77,
        request_id: `req-${d.mj}`,
      },
    });
  }
  for (const t of TASKS) {
    await db.task.create({
      data: {
        user_id: ids[t.user],
        task_id: t.id,
        platform: t.platform,
        action: t.action,
        channel_id: t.channel,
        status: "SUCCESS",
        progress: "100%",
        submit_time: BigInt(at(t.ago)),
        finish_time: BigInt(at(t.ago) + 90_000),
        data: t.data,
        quota: 1000n,
        token_id: 88,
        request_id: `req-${t.id}`,
      },
    });
  }
});

type Item = Record<string, unknown>;

async function list(handler: typeof mjAll.GET, path: string, as: Caller) {
  const res = await call(handler, "GET", path, { as });
  expect(res.json.success, res.text).toBe(true);
  return { ...(res.json.data as { items: Item[]; total: number; page: number; page_size: number }), text: res.text };
}

const ids = (items: Item[], key: "mj_id" | "task_id") => items.map((i) => i[key]);

describe("GET /api/mj/ (admin)", () => {
  it("lists every user's drawings newest first with the spec's fields, the channel, and none of the key, request or vendor address", async () => {
    const page = await list(mjAll.GET, "/api/mj/?page_size=100", admin);
    expect(page).toMatchObject({ total: 4, page: 0, page_size: 100 });
    expect(ids(page.items, "mj_id")).toEqual(["mj-ann-10m", "mj-ben-1h", "mj-ann-2d", "mj-ann-old"]);
    expect(Object.keys(page.items[0]!).sort()).toEqual(
      [
        "id",
        "submit_time",
        "finish_time",
        "channel_id",
        "action",
        "mj_id",
        "code",
        "status",
        "progress",
        "image_url",
        "prompt",
        "prompt_en",
        "fail_reason",
        "quota",
      ].sort(),
    );
    expect(page.items[0]).toMatchObject({ channel_id: 1, submit_time: at(600), finish_time: at(600) + 30_000, quota: 5000, code: 1 });
    // The image goes through our proxy; a task without one has none.
    expect(page.items[0]!.image_url).toBe("/mj/image/mj-ann-10m");
    expect(page.items[2]!.image_url).toBe("");
    expect(page.text).not.toContain("vendor-mj.example");
    expect(page.text).not.toContain("req-");
    expect(page.text).not.toContain("token_id");
  });

  it("filters by channel, task id and submit time; an admin's failure text keeps the host but not the key", async () => {
    expect(ids((await list(mjAll.GET, "/api/mj/?channel_id=2", admin)).items, "mj_id")).toEqual(["mj-ben-1h", "mj-ann-2d"]);
    expect(ids((await list(mjAll.GET, "/api/mj/?mj_id=mj-ann-2d", admin)).items, "mj_id")).toEqual(["mj-ann-2d"]);
    // An id matches whole, not as a part.
    expect((await list(mjAll.GET, "/api/mj/?mj_id=mj-ann", admin)).total).toBe(0);
    // The last 30 days, as /midjourney asks by default.
    const recent = await list(mjAll.GET, `/api/mj/?start_timestamp=${NOW_S - 30 * DAY}&end_timestamp=${NOW_S + HOUR}`, admin);
    expect(ids(recent.items, "mj_id")).toEqual(["mj-ann-10m", "mj-ben-1h", "mj-ann-2d"]);
    const failed = (await list(mjAll.GET, "/api/mj/?mj_id=mj-ben-1h", admin)).items[0]!;
    expect(failed.fail_reason).toContain("mj-proxy.internal.example");
    expect(failed.fail_reason).not.toContain("abcdef1234567890");
  });

  it("takes the range in seconds against submit times in milliseconds, both ends included", async () => {
    const second = NOW_S - 600; // mj-ann-10m was submitted 640 ms into this second.
    const only = (qs: string) => list(mjAll.GET, `/api/mj/?channel_id=1&${qs}`, admin).then((p) => ids(p.items, "mj_id"));
    expect(await only(`start_timestamp=${second}&end_timestamp=${second}`)).toEqual(["mj-ann-10m"]);
    expect(await only(`start_timestamp=${second + 1}`)).toEqual([]);
    expect(await only(`start_timestamp=${second - 60}&end_timestamp=${second - 1}`)).toEqual([]);
    // 0 or empty is no bound.
    expect(await only("start_timestamp=0&end_timestamp=")).toEqual(["mj-ann-10m", "mj-ann-old"]);
  });

  it("pages from p=0", async () => {
    const first = await list(mjAll.GET, "/api/mj/?p=0&page_size=3", admin);
    const second = await list(mjAll.GET, "/api/mj/?p=1&page_size=3", admin);
    expect(first).toMatchObject({ total: 4, page: 0, page_size: 3 });
    expect(ids(first.items, "mj_id")).toEqual(["mj-ann-10m", "mj-ben-1h", "mj-ann-2d"]);
    expect(second).toMatchObject({ total: 4, page: 1 });
    expect(ids(second.items, "mj_id")).toEqual(["mj-ann-old"]);
  });

  it("is for admins only", async () => {
    expect((await call(mjAll.GET, "GET", "/api/mj/", { as: ann })).status).toBe(403);
    expect((await call(mjAll.GET, "GET", "/api/mj/")).status).toBe(401);
    expect((await call(mjSelf.GET, "GET", "/api/mj/self/")).status).toBe(401);
  });
});

describe("GET /api/mj/self/", () => {
  it("lists only the caller's drawings, without the channel, whatever channel_id says", async () => {
    const mine = await list(mjSelf.GET, "/api/mj/self/?page_size=100&channel_id=2", ann);
    expect(ids(mine.items, "mj_id")).toEqual(["mj-ann-10m", "mj-ann-2d", "mj-ann-old"]);
    for (const item of mine.items) expect(item).not.toHaveProperty("channel_id");
    expect(mine.items[0]!.image_url).toBe("/mj/image/mj-ann-10m");
    expect(mine.text).not.toContain("vendor-mj.example");
    // Someone else's task id finds nothing.
    expect((await list(mjSelf.GET, "/api/mj/self/?mj_id=mj-ben-1h", ann)).total).toBe(0);
  });

  it("gives a user their failure text without addresses or keys", async () => {
    const [failed] = (await list(mjSelf.GET, "/api/mj/self/", ben)).items;
    expect(failed).toMatchObject({ mj_id: "mj-ben-1h", status: "FAILURE" });
    expect(failed!.fail_reason).toContain("下载失败");
    expect(failed!.fail_reason).not.toContain("mj-proxy.internal.example");
    expect(failed!.fail_reason).not.toContain("abcdef1234567890");
  });
});

describe("GET /api/task/ and /api/task/self", () => {
  it("lists every user's tasks for an admin, with the channel and without the vendor's result", async () => {
    const page = await list(taskAll.GET, "/api/task/?page_size=100", admin);
    expect(page.total).toBe(3);
    expect(ids(page.items, "task_id")).toEqual(["suno-ann-5m", "video-ben-2h", "suno-ann-3d"]);
    expect(Object.keys(page.items[0]!).sort()).toEqual(
      [
        "id",
        "submit_time",
        "finish_time",
        "progress",
        "channel_id",
        "platform",
        "action",
        "task_id",
        "status",
        "fail_reason",
        "quota",
      ].sort(),
    );
    expect(page.items[1]).toMatchObject({ platform: "openai-video", action: "VIDEO", channel_id: 4, submit_time: at(2 * HOUR) });
    for (const leak of ["vendor-suno.example", "videos.vendor.example", "req-", "la la"]) expect(page.text).not.toContain(leak);
  });

  it("filters by channel, task id and time, and pages", async () => {
    expect(ids((await list(taskAll.GET, "/api/task/?channel_id=4", admin)).items, "task_id")).toEqual(["suno-ann-5m", "video-ben-2h"]);
    expect(ids((await list(taskAll.GET, "/api/task/?task_id=video-ben-2h", admin)).items, "task_id")).toEqual(["video-ben-2h"]);
    const today = await list(taskAll.GET, `/api/task/?start_timestamp=${NOW_S - 3 * HOUR}&end_timestamp=${NOW_S + HOUR}`, admin);
    expect(ids(today.items, "task_id")).toEqual(["suno-ann-5m", "video-ben-2h"]);
    const second = NOW_S - 300;
    expect(ids((await list(taskAll.GET, `/api/task/?end_timestamp=${second}&start_timestamp=${second}`, admin)).items, "task_id")).toEqual([
      "suno-ann-5m",
    ]);
    const paged = await list(taskAll.GET, "/api/task/?p=1&page_size=2", admin);
    expect(paged).toMatchObject({ total: 3, page: 1, page_size: 2 });
    expect(ids(paged.items, "task_id")).toEqual(["suno-ann-3d"]);
  });

  it("gives a user their own tasks only, without the channel", async () => {
    const mine = await list(taskSelf.GET, "/api/task/self?channel_id=4&page_size=100", ann);
    expect(ids(mine.items, "task_id")).toEqual(["suno-ann-5m", "suno-ann-3d"]);
    for (const item of mine.items) expect(item).not.toHaveProperty("channel_id");
    expect(ids((await list(taskSelf.GET, "/api/task/self", ben)).items, "task_id")).toEqual(["video-ben-2h"]);
    expect((await call(taskAll.GET, "GET", "/api/task/", { as: ben })).status).toBe(403);
    expect((await call(taskSelf.GET, "GET", "/api/task/self")).status).toBe(401);
  });
});

describe("bad query values", () => {
  it.each([
    ["/api/mj/?channel_id=99999999999", mjAll.GET, "渠道 ID 超出范围"],
    ["/api/mj/self/?start_timestamp=99999999999", mjSelf.GET, "时间超出范围"],
    ["/api/task/?end_timestamp=99999999999", taskAll.GET, "时间超出范围"],
    ["/api/task/self?p=999999999&page_size=100", taskSelf.GET, "页码超出范围"],
  ] as const)("%s is refused in the envelope", async (path, handler, message) => {
    const res = await call(handler, "GET", path, { as: admin });
    expect(res.status).toBe(400);
    expect(res.json.success).toBe(false);
    expect(res.json.message).toContain(message);
  });

  it("reads garbage numbers as no filter, as /api/log does", async () => {
    expect((await list(mjAll.GET, "/api/mj/?channel_id=abc&start_timestamp=x&p=y", admin)).total).toBe(4);
  });
});

describe("the pages' filters from their URLs", () => {
  const from = (q: Record<string, string>) => (key: string) => q[key] ?? "";
  const NOW = Date.UTC(2026, 10, 24, 1, 30, 15) / 1000;

  it("default to 30 days back on /midjourney and to midnight in the viewer's zone on /task, both an hour ahead", () => {
    expect(drawingFiltersOf(from({}), true, NOW)).toEqual({
      channel_id: 0,
      mj_id: "",
      start_timestamp: NOW - 30 * DAY,
      end_timestamp: NOW + HOUR,
    });
    expect(asyncTaskFiltersOf(from({}), true, NOW, "Asia/Shanghai")).toEqual({
      channel_id: 0,
      task_id: "",
      start_timestamp: Date.UTC(2026, 10, 23, 16) / 1000,
      end_timestamp: NOW + HOUR,
    });
  });

  it("keep what the URL names (0 = no bound), drop what the route would refuse, and the channel for a user", () => {
    const url = from({ channel_id: "7", mj_id: " mj-1 ", task_id: "t-1", start_timestamp: "0", end_timestamp: "1700000000" });
    expect(drawingFiltersOf(url, true, NOW)).toEqual({ channel_id: 7, mj_id: "mj-1", start_timestamp: 0, end_timestamp: 1700000000 });
    expect(asyncTaskFiltersOf(url, false, NOW, "UTC")).toMatchObject({ channel_id: 0, task_id: "t-1" });
    const bad = from({ channel_id: "99999999999", end_timestamp: "soon" });
    expect(drawingFiltersOf(bad, true, NOW)).toMatchObject({ channel_id: 0, end_timestamp: NOW + HOUR });
  });
});
