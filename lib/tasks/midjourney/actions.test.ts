import { describe, expect, it } from "vitest";
import { ActionError, buttonAction, changeAction, MJ_ACTION, modelOfAction, simpleChangeAction } from "@/lib/tasks/midjourney/actions";

describe("Midjourney actions", () => {
  it("prices each action as its pseudo-model", () => {
    expect(modelOfAction(MJ_ACTION.imagine)).toBe("mj_imagine");
    expect(modelOfAction(MJ_ACTION.highVariation)).toBe("mj_high_variation");
    expect(modelOfAction(MJ_ACTION.customZoom)).toBe("mj_custom_zoom");
    expect(modelOfAction(MJ_ACTION.swapFace)).toBe("swap_face");
  });

  it("reads a button's customId (midjourney-proxy-plus) as its action", () => {
    const of = (customId: string) => buttonAction({ taskId: "17", customId }).action;
    expect(of("MJ::JOB::upsample::2::3dbbd469-36af-4a0f-8f02-df6c579e7011")).toBe("UPSCALE");
    expect(of("MJ::JOB::upsample_v6_2x_subtle::1::h::SOLO")).toBe("UPSCALE");
    expect(of("MJ::JOB::variation::3::h")).toBe("VARIATION");
    expect(of("MJ::JOB::low_variation::1::h::SOLO")).toBe("LOW_VARIATION");
    expect(of("MJ::JOB::high_variation::1::h::SOLO")).toBe("HIGH_VARIATION");
    expect(of("MJ::JOB::pan_up::1::h::SOLO")).toBe("PAN");
    expect(of("MJ::JOB::reroll::0::h::SOLO")).toBe("REROLL");
    expect(of("MJ::Outpaint::50::1::h::SOLO")).toBe("ZOOM");
    expect(of("MJ::CustomZoom::h")).toBe("CUSTOM_ZOOM");
    expect(of("MJ::Inpaint::1::h::SOLO")).toBe("INPAINT");
    expect(buttonAction({ taskId: 1712345678901234, customId: "MJ::JOB::reroll::0::h" }).taskId).toBe("1712345678901234");
  });

  it("refuses a customId it cannot read, an upscale without its index, and a missing taskId", () => {
    expect(() => buttonAction({ taskId: "1", customId: "MJ::JOB::dance::1::h" })).toThrow(
      new ActionError("未知的操作：MJ::JOB::dance::1::h"),
    );
    expect(() => buttonAction({ taskId: "1", customId: "MJ::JOB::upsample::9::h" })).toThrow(ActionError);
    expect(() => buttonAction({ taskId: "1", customId: "" })).toThrow("缺少 customId");
    expect(() => buttonAction({ customId: "MJ::JOB::reroll::0::h" })).toThrow("缺少 taskId（原任务 ID）");
  });

  it("reads /submit/change and /submit/simple-change", () => {
    expect(changeAction({ taskId: "9", action: "upscale", index: 4 })).toEqual({ taskId: "9", action: "UPSCALE" });
    expect(changeAction({ taskId: "9", action: "REROLL" })).toEqual({ taskId: "9", action: "REROLL" });
    expect(() => changeAction({ taskId: "9", action: "VARIATION", index: 0 })).toThrow("index 须为 1 到 4");
    expect(simpleChangeAction({ content: "1320098173412546 U2" })).toEqual({ taskId: "1320098173412546", action: "UPSCALE" });
    expect(simpleChangeAction({ content: "1320098173412546 v4" })).toEqual({ taskId: "1320098173412546", action: "VARIATION" });
    expect(simpleChangeAction({ content: "1320098173412546 R" })).toEqual({ taskId: "1320098173412546", action: "REROLL" });
    for (const content of ["1320098173412546 U5", "1320098173412546", "1320098173412546 U1 V1", "x R1"]) {
      expect(() => simpleChangeAction({ content }), content).toThrow(ActionError);
    }
  });
});
