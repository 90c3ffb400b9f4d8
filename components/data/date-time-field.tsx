"use client";
// A date-and-time field that reads like the tables (issue 20.23): typed or picked, it shows
// "2026-11-24 15:04:05" in 24-hour time whatever the browser's locale (lib/ui/datetime-text has
// why a native datetime-local input cannot). The calendar button opens the browser's own picker
// on a hidden datetime-local input, whose choice is written back in this format (that popup follows
// the browser's locale; the field, what the filters read, never does).
import { ActionIcon, Box, TextInput, type TextInputProps } from "@mantine/core";
import { useEffect, useRef, useState } from "react";
import { useTimeZone } from "@/components/data/display";
import { Icon } from "@/components/icons";
import { DATETIME_TEXT_HINT, dateTimeText, parseDateTimeText } from "@/lib/ui/datetime-text";
import { formatTimestamp } from "@/lib/ui/format";

/** Unix seconds as this field's value ("2026-11-24T10:00:00") in the viewer's zone; "" for no bound (0). */
const secondsToField = (seconds: number, zone?: string) => (seconds > 0 ? formatTimestamp(seconds, zone).replace(" ", "T") : "");
/** This field's value (the browser's zone) as Unix seconds; 0 for an empty field. */
const fieldToSeconds = (value: string) => {
  const ms = new Date(value).getTime();
  return value && Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
};

type Props = Omit<TextInputProps, "value" | "onChange" | "type"> & {
  label: string;
  /** A datetime-local value ("YYYY-MM-DDTHH:mm[:ss]"), "" for none. */
  value: string;
  /** Called with each valid value the field holds ("" when emptied); invalid text is not passed on. */
  onChange: (value: string) => void;
  /** Offer seconds in the picker. */
  withSeconds?: boolean;
};

export function DateTimeField({ label, value, onChange, withSeconds = false, error, w, style, ...rest }: Props) {
  const [text, setText] = useState(() => dateTimeText(value));
  const native = useRef<HTMLInputElement>(null);
  // A new value from outside (a reset, a picked date) replaces what is shown, unless it is what
  // the text already says.
  useEffect(() => {
    setText((current) => (parseDateTimeText(current) === value ? current : dateTimeText(value)));
  }, [value]);

  const invalid = parseDateTimeText(text) === null;
  const openPicker = () => {
    const input = native.current;
    if (!input) return;
    try {
      input.showPicker();
    } catch {
      input.focus();
    }
  };

  return (
    <Box pos="relative" w={w} style={style}>
      <TextInput
        {...rest}
        label={label}
        value={text}
        inputMode="numeric"
        autoComplete="off"
        placeholder={rest.placeholder ?? DATETIME_TEXT_HINT}
        error={error ?? (invalid ? `请按 ${DATETIME_TEXT_HINT} 填写（24 小时制）` : undefined)}
        onChange={(e) => {
          const next = e.currentTarget.value;
          setText(next);
          const parsed = parseDateTimeText(next);
          if (parsed !== null) onChange(parsed);
        }}
        rightSectionPointerEvents="all"
        rightSection={
          <ActionIcon variant="subtle" color="gray" aria-label="打开日历" title="打开日历" onClick={openPicker}>
            <Icon name="calendar" size={16} />
          </ActionIcon>
        }
      />
      <input
        ref={native}
        type="datetime-local"
        step={withSeconds ? 1 : 60}
        tabIndex={-1}
        aria-hidden="true"
        value={value}
        onChange={(e) => onChange(e.currentTarget.value)}
        style={{ position: "absolute", left: 0, bottom: 0, width: 1, height: 1, opacity: 0, pointerEvents: "none", border: 0, padding: 0 }}
      />
    </Box>
  );
}

export type TimeRangeKey = "start_timestamp" | "end_timestamp";

/** A filter form's 起始时间 and 结束时间 as Unix seconds (0: no bound), edited in the viewer's zone. */
export function TimeRangeFields({
  start,
  end,
  onChange,
}: {
  start: number;
  end: number;
  onChange: (key: TimeRangeKey, seconds: number) => void;
}) {
  const zone = useTimeZone();
  return (
    <>
      <DateTimeField
        label="起始时间"
        withSeconds
        value={secondsToField(start, zone)}
        onChange={(v) => onChange("start_timestamp", fieldToSeconds(v))}
      />
      <DateTimeField
        label="结束时间"
        withSeconds
        value={secondsToField(end, zone)}
        onChange={(v) => onChange("end_timestamp", fieldToSeconds(v))}
      />
    </>
  );
}
