// The fields of the super admin's "other" settings tab (spec §2 Settings, §9 "links and text"):
// texts shown to every visitor, the option registry's "other" section (its label, placeholder and
// input) with each card's title and button. Shared by the server page (which loads their values)
// and the tab.
import { type OptionField, type OptionKey, sectionFields } from "@/lib/options/registry";

export type OtherFieldKey = "Notice" | "SystemName" | "Logo" | "HomePageContent" | "About" | "Footer";

/** What each card adds to its registry entry. */
type Card = {
  title: string;
  save: string;
  /** The preview shows an http(s) address as the embedded page (home page and about). */
  embeds?: boolean;
  /** The top bar or footer read it from the status object: read it again after a save. */
  inStatus?: boolean;
};

const CARDS: Record<OtherFieldKey, Card> = {
  Notice: { title: "公告", save: "保存公告" },
  SystemName: { title: "系统名称", save: "设置系统名称", inStatus: true },
  Logo: { title: "Logo", save: "设置 Logo", inStatus: true },
  HomePageContent: { title: "首页内容", save: "保存首页内容", embeds: true },
  About: { title: "关于", save: "保存关于", embeds: true },
  Footer: { title: "页脚", save: "设置页脚", inStatus: true },
};

export type OtherField = Card & {
  key: OtherFieldKey;
  label: string;
  placeholder: string;
  /** One line of text, or a multi-line Markdown/HTML editor with a preview. */
  multiline: boolean;
};

export const OTHER_FIELDS: readonly OtherField[] = sectionFields("other").map((f: OptionField) => ({
  ...CARDS[f.key as OtherFieldKey],
  key: f.key as OtherFieldKey,
  label: f.label,
  placeholder: f.placeholder ?? "",
  multiline: f.input === "markdown",
}));

export type OtherValues = Record<OtherFieldKey, string>;

const KEYS = new Set<OptionKey>(OTHER_FIELDS.map((f) => f.key));

/** The tab's values out of the option list `GET /api/option/` returns (listOptions). */
export function otherTabValues(options: Array<{ key: OptionKey; value: string }>): OtherValues {
  const values = Object.fromEntries(OTHER_FIELDS.map((f) => [f.key, ""])) as OtherValues;
  for (const { key, value } of options) if (KEYS.has(key)) values[key as OtherFieldKey] = value;
  return values;
}

export const OTHER_MSG = { preview: "预览", edit: "编辑", empty: "（空）" } as const;
