"use client";
// Create and edit drawer of the redemption page (spec §5 Redemption form): name, quota, and on
// create the count. The created codes are downloaded as `${name}.txt` and shown in a dialog.
import { NumberInput, TextInput } from "@mantine/core";
import { useForm } from "@mantine/form";
import { useEffect, useState } from "react";
import { useQuotaDisplay } from "@/components/data/display";
import { downloadText } from "@/components/data/download";
import { DrawerForm } from "@/components/data/drawer-form";
import { showCreatedCodes } from "@/components/redemptions/created-codes";
import { api } from "@/lib/client/api";
import { showSuccess } from "@/lib/client/notify";
import { buildRedemptionRequest, codesFile, REDEMPTION_FORM_MSG, type RedemptionFormValues } from "@/lib/redemptions/form";
import { REDEMPTION_COUNT_MAX, REDEMPTION_DEFAULTS, REDEMPTION_NAME_MAX } from "@/lib/redemptions/schemas";
import type { RedemptionView } from "@/lib/redemptions/view";
import { formatQuota } from "@/lib/ui/format";

type Props = {
  /** null: closed; {}: create; {id}: edit that code. */
  editing: { id?: number } | null;
  onClose: () => void;
  onSaved: () => void;
};

const CREATE_DEFAULTS: RedemptionFormValues = { name: "", quota: REDEMPTION_DEFAULTS.quota, count: REDEMPTION_DEFAULTS.count };

export function RedemptionDrawer({ editing, onClose, onSaved }: Props) {
  const display = useQuotaDisplay();
  const editId = editing?.id;
  const [loading, setLoading] = useState(false);
  const [submitting, setSubmitting] = useState(false);
  const form = useForm<RedemptionFormValues>({ initialValues: CREATE_DEFAULTS });

  // biome-ignore lint/correctness/useExhaustiveDependencies: load once per opening
  useEffect(() => {
    if (!editing) return;
    if (editing.id === undefined) {
      form.setValues(CREATE_DEFAULTS);
      form.resetDirty(CREATE_DEFAULTS);
      return;
    }
    setLoading(true);
    void api<RedemptionView>("GET", `/api/redemption/${editing.id}`).then((res) => {
      setLoading(false);
      if (!res.success) {
        onClose();
        return;
      }
      const values = { name: res.data.name, quota: res.data.quota, count: 1 };
      form.setValues(values);
      form.resetDirty(values);
    });
  }, [editing]);

  const submit = async () => {
    const request = buildRedemptionRequest(form.getValues(), editId);
    if (request.kind === "skip") return;
    if (request.kind === "invalid") {
      form.setFieldError(request.field, request.message);
      return;
    }
    setSubmitting(true);
    try {
      if (request.kind === "edit") {
        const res = await api("PUT", "/api/redemption/", request.body);
        if (!res.success) return;
        showSuccess(REDEMPTION_FORM_MSG.updated);
        onSaved();
        return;
      }
      const res = await api<string[]>("POST", "/api/redemption/", request.body);
      if (!res.success) return;
      showSuccess(REDEMPTION_FORM_MSG.created);
      const file = codesFile(request.body.name, res.data);
      downloadText(file.fileName, file.text);
      showCreatedCodes(request.body.name, res.data);
      onSaved();
    } finally {
      setSubmitting(false);
    }
  };

  const quota = Number.parseInt(String(form.getValues().quota), 10) || 0;

  return (
    <DrawerForm
      opened={editing !== null}
      onClose={onClose}
      title={editId === undefined ? "创建新的兑换码" : "更新兑换码信息"}
      onSubmit={submit}
      submitting={submitting}
      loading={loading}
    >
      <TextInput
        label="名称"
        placeholder="请输入名称"
        withAsterisk
        maxLength={REDEMPTION_NAME_MAX}
        autoComplete="off"
        {...form.getInputProps("name")}
      />
      <NumberInput
        label={`额度（等价金额：${formatQuota(quota, { ...display, inCurrency: true })}）`}
        placeholder="请输入单个兑换码中包含的额度"
        allowDecimal={false}
        allowNegative={false}
        min={1}
        {...form.getInputProps("quota")}
      />
      {editId === undefined && (
        <NumberInput
          label="生成数量"
          description={`一次最多 ${REDEMPTION_COUNT_MAX} 个`}
          placeholder="请输入生成数量"
          allowDecimal={false}
          allowNegative={false}
          min={1}
          max={REDEMPTION_COUNT_MAX}
          {...form.getInputProps("count")}
        />
      )}
    </DrawerForm>
  );
}
