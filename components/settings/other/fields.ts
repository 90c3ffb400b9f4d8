// The fields of the super admin's "other" settings tab (spec §2 Settings, §9 "links and text"):
// texts shown to every visitor. Shared by the server page (which loads their values) and the tab.
import type { OptionKey } from "@/lib/options";

export type OtherFieldKey = "Notice" | "SystemName" | "Logo" | "HomePageContent" | "About" | "Footer";

export type OtherField = {
  key: OtherFieldKey;
  title: string;
  label: string;
  placeholder: string;
  save: string;
  /** One line of text, or a multi-line Markdown/HTML editor with a preview. */
  multiline: boolean;
  /** The preview shows an http(s) address as the embedded page (home page and about). */
  embeds?: boolean;
  /** The top bar or footer read it from the status object: read it again after a save. */
  inStatus?: boolean;
};

export const OTHER_FIELDS: readonly OtherField[] = [
  {
    key: "Notice",
    title: "公告",
    label: "公告",
    placeholder: "在此输入新的公告内容，支持 Markdown & HTML 代码",
    save: "保存公告",
    multiline: true,
  },
  {
    key: "SystemName",
    title: "系统名称",
    label: "系统名称",
    placeholder: "在此输入系统名称",
    save: "设置系统名称",
    multiline: false,
    inStatus: true,
  },
  {
    key: "Logo",
    title: "Logo",
    label: "Logo 图片地址",
    placeholder: "在此输入 Logo 图片地址",
    save: "设置 Logo",
    multiline: false,
    inStatus: true,
  },
  {
    key: "HomePageContent",
    title: "首页内容",
    label: "首页内容",
    placeholder:
      "在此输入首页内容，支持 Markdown & HTML 代码，设定之后首页的状态信息将不再显示。如果输入的是一个链接，则会使用该链接作为 iframe 的 src 属性，这允许你设置任意网页作为首页。",
    save: "保存首页内容",
    multiline: true,
    embeds: true,
  },
  {
    key: "About",
    title: "关于",
    label: "关于",
    placeholder:
      "在此输入新的关于内容，支持 Markdown & HTML 代码。如果输入的是一个链接，则会使用该链接作为 iframe 的 src 属性，这允许你设置任意网页作为关于页面。",
    save: "保存关于",
    multiline: true,
    embeds: true,
  },
  {
    key: "Footer",
    title: "页脚",
    label: "页脚",
    placeholder: "在此输入新的页脚，留空则使用默认页脚，支持 Markdown & HTML 代码",
    save: "设置页脚",
    multiline: true,
    inStatus: true,
  },
];

export type OtherValues = Record<OtherFieldKey, string>;

const KEYS = new Set<OptionKey>(OTHER_FIELDS.map((f) => f.key));

/** The tab's values out of the option list `GET /api/option/` returns (listOptions). */
export function otherTabValues(options: Array<{ key: OptionKey; value: string }>): OtherValues {
  const values = Object.fromEntries(OTHER_FIELDS.map((f) => [f.key, ""])) as OtherValues;
  for (const { key, value } of options) if (KEYS.has(key)) values[key as OtherFieldKey] = value;
  return values;
}

export const OTHER_MSG = { preview: "预览", edit: "编辑", empty: "（空）" } as const;
