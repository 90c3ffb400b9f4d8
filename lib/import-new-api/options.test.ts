// The latest new-api's dotted option keys that Qiao keeps flat (convertDottedOptions in run.ts).
import { describe, expect, it } from "vitest";
import { convertDottedOptions } from "./run";

const convert = (entries: Record<string, string>) => Object.fromEntries(convertDottedOptions(new Map(Object.entries(entries))));

describe("dotted new-api options", () => {
  it("turns the quota display type into DisplayInCurrencyEnabled, over a stale flat value", () => {
    expect(convert({ "general_setting.quota_display_type": "TOKENS", DisplayInCurrencyEnabled: "true" })).toEqual({
      DisplayInCurrencyEnabled: "false",
    });
    for (const type of ["USD", "CNY", "CUSTOM"]) {
      expect(convert({ "general_setting.quota_display_type": type })).toEqual({ DisplayInCurrencyEnabled: "true" });
    }
  });

  it("turns the automatic channel test into ChannelTestInterval, 0 when off", () => {
    expect(convert({ "monitor_setting.auto_test_channel_enabled": "true", "monitor_setting.auto_test_channel_minutes": "7.6" })).toEqual({
      ChannelTestInterval: "8",
    });
    expect(convert({ "monitor_setting.auto_test_channel_enabled": "true" })).toEqual({ ChannelTestInterval: "10" });
    expect(convert({ "monitor_setting.auto_test_channel_enabled": "false", "monitor_setting.auto_test_channel_minutes": "5" })).toEqual({
      ChannelTestInterval: "0",
    });
  });

  it("leaves every other key as it is", () => {
    expect(convert({ "oidc.client_id": "x", "console_setting.faq": "[]", SystemName: "n" })).toEqual({
      "oidc.client_id": "x",
      "console_setting.faq": "[]",
      SystemName: "n",
    });
  });
});
