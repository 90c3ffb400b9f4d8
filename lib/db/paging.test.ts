import { describe, expect, it } from "vitest";
import { isApiError } from "@/lib/errors";
import { idParam, lastPage, pagedFind, pageWindow, zeroIsOne } from "@/lib/db/paging";

const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return isApiError(e) ? { status: e.status, message: e.message } : e;
  }
  return null;
};

describe("paging", () => {
  it("clamps p and page_size the way every list route does", () => {
    expect(pageWindow(undefined, undefined)).toEqual({ page: 0, pageSize: 10, skip: 0 });
    expect(pageWindow("2", "50")).toEqual({ page: 2, pageSize: 50, skip: 100 });
    expect(pageWindow(-3, 1000)).toEqual({ page: 0, pageSize: 100, skip: 0 });
    expect(pageWindow("abc", "0.5")).toEqual({ page: 0, pageSize: 10, skip: 0 });
    expect(refusal(() => pageWindow(21474837, 100))).toEqual({ status: 400, message: "页码超出范围" });
    expect(lastPage(10)).toBe(214748364);
    expect(zeroIsOne(0)).toBe(1);
    expect(zeroIsOne(undefined)).toBeUndefined();
  });

  it("counts and reads one window in parallel, then maps the rows", async () => {
    const windows: unknown[] = [];
    const page = await pagedFind(
      { p: 1, page_size: 2 },
      {
        count: async () => 5,
        rows: async (window) => {
          windows.push(window);
          return [3, 4];
        },
        view: (rows) => rows.map((n) => `row ${n}`),
      },
    );
    expect(windows).toEqual([{ skip: 2, take: 2 }]);
    expect(page).toEqual({ items: ["row 3", "row 4"], page: 1, page_size: 2, total: 5 });
  });

  it("reads a route id, anything else being the entity's not-found", () => {
    expect(idParam("12", "令牌不存在")).toBe(12);
    for (const raw of [undefined, "", "0", "-1", "1.5", "abc"]) {
      expect(
        refusal(() => idParam(raw, "令牌不存在")),
        String(raw),
      ).toEqual({ status: 404, message: "令牌不存在" });
    }
    expect(idParam("3000000000", "x")).toBe(3000000000);
    expect(refusal(() => idParam("3000000000", "兑换码不存在", 2147483647))).toEqual({ status: 404, message: "兑换码不存在" });
  });
});
