import { describe, expect, it } from "vitest";
import { listParams, pageSizeOf, param } from "@/lib/ui/list-params";

describe("list params", () => {
  it("reads p from 0 and a known page size", () => {
    expect(listParams({ p: "2", size: "50" }, undefined)).toEqual({ p: 2, page_size: 50 });
  });
  it("falls back to the cookie, then 10; garbage never reaches the query", () => {
    expect(listParams({}, "20")).toEqual({ p: 0, page_size: 20 });
    expect(listParams({ p: "-3", size: "7" }, "x")).toEqual({ p: 0, page_size: 10 });
    expect(listParams({ p: "abc" }, "100")).toEqual({ p: 0, page_size: 100 });
    expect(pageSizeOf("1000")).toBe(10);
    expect(listParams({ p: "99999999999" }, "10")).toEqual({ p: 214748364, page_size: 10 });
  });
  it("reads a prefixed list's own keys only, beside other query values", () => {
    const params = { p: "3", size: "50", orders_p: "1", orders_size: "20", out_trade_no: "USR1NOabc" };
    expect(listParams(params, undefined, "orders_")).toEqual({ p: 1, page_size: 20 });
    expect(listParams({ p: "3", size: "50" }, "100", "orders_")).toEqual({ p: 0, page_size: 100 });
  });
  it("trims search values and takes the first of repeated ones", () => {
    expect(param({ keyword: "  gpt " }, "keyword")).toBe("gpt");
    expect(param({ keyword: ["a ", "b"] }, "keyword")).toBe("a");
    expect(param({}, "keyword")).toBe("");
  });
});
