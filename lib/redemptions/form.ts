// The redemption drawer's rules (browser-side) (spec §5 Redemption form), pure so they are
// unit-tested: what is sent to POST/PUT /api/redemption/, and the text file of created codes.
import {
  type RedemptionCreateInput,
  type RedemptionUpdateInput,
  redemptionCreateSchema,
  redemptionUpdateSchema,
} from "@/lib/redemptions/schemas";

export const REDEMPTION_FORM_MSG = {
  created: "兑换码创建成功！",
  updated: "兑换码更新成功！",
  noneSelected: "请至少选择一个兑换码！",
} as const;

export type RedemptionFormValues = {
  name: string;
  quota: number | string;
  count: number | string;
};

export type RedemptionRequest =
  /** Create with an empty name: spec §5 says nothing is submitted, silently. */
  | { kind: "skip" }
  /** `field`: the form field the message is about, marked and revealed by the drawer. */
  | { kind: "invalid"; field: keyof RedemptionFormValues; message: string }
  | { kind: "create"; body: RedemptionCreateInput }
  | { kind: "edit"; body: Pick<RedemptionUpdateInput, "id" | "name" | "quota"> };

/** "12abc" reads 12 as parseInt would; what does not start with digits stays as typed, for the schema to refuse. */
function integer(value: number | string): number | string {
  const n = Number.parseInt(String(value).trim(), 10);
  return Number.isNaN(n) ? String(value) : n;
}

/** The refusal of the schema's first issue, on the field it names (the name when it names none). */
function invalid(issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>): RedemptionRequest {
  const field = issues[0]?.path[0];
  return {
    kind: "invalid",
    field: field === "quota" || field === "count" ? field : "name",
    message: issues[0]?.message ?? "",
  };
}

/** The body to send (quota and count parsed as integers, then checked by the API's own schema). */
export function buildRedemptionRequest(values: RedemptionFormValues, editId?: number): RedemptionRequest {
  const name = values.name.trim();
  if (editId === undefined) {
    if (!name) return { kind: "skip" };
    const parsed = redemptionCreateSchema.safeParse({ name, quota: integer(values.quota), count: integer(values.count) });
    if (!parsed.success) return invalid(parsed.error.issues);
    return { kind: "create", body: parsed.data };
  }
  const parsed = redemptionUpdateSchema.safeParse({ id: editId, name, quota: integer(values.quota) });
  if (!parsed.success) return invalid(parsed.error.issues);
  const { id, name: newName, quota } = parsed.data;
  return { kind: "edit", body: { id, name: newName, quota } };
}

/** The download offered after a create: named after the codes' name, one code per line. */
export function codesFile(name: string, codes: string[]): { fileName: string; text: string } {
  return { fileName: `${name}.txt`, text: codes.map((c) => `${c}\n`).join("") };
}

/** "Copy selected": one `name code` line per code. */
export const selectedLines = (rows: { name: string; key: string }[]) => rows.map((r) => `${r.name} ${r.key}`).join("\n");
