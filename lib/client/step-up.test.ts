import { afterEach, describe, expect, it } from "vitest";
import { askStepUp, isStepUpRefusal, setStepUpAsker } from "@/lib/client/step-up";

afterEach(() => setStepUpAsker(null));

describe("asking for step-up", () => {
  it("answers null while no dialog is mounted, so the refusal is reported as it came", async () => {
    expect(await askStepUp()).toBeNull();
  });

  it("calls refused together share one dialog; a later refusal opens it again", async () => {
    let opened = 0;
    let answer: (verified: boolean) => void = () => {};
    setStepUpAsker(() => {
      opened++;
      return new Promise<boolean>((resolve) => {
        answer = resolve;
      });
    });
    const first = askStepUp();
    const second = askStepUp();
    expect(opened).toBe(1);
    answer(true);
    expect(await Promise.all([first, second])).toEqual([true, true]);

    const third = askStepUp();
    expect(opened).toBe(2);
    answer(false);
    expect(await third).toBe(false);
  });

  it("knows the refusal by its data", () => {
    expect(isStepUpRefusal({ step_up: true })).toBe(true);
    for (const data of [undefined, null, {}, { step_up: "true" }, { step_up: false }, "step_up"]) expect(isStepUpRefusal(data)).toBe(false);
  });
});
