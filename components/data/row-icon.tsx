"use client";
// A row's icon button (查看, 编辑, 删除): a subtle ActionIcon named by its label, the label (or a
// reason it is off) as its tooltip.
import { ActionIcon, Tooltip } from "@mantine/core";
import { Icon, type IconName } from "@/components/icons";

type Props = {
  label: string;
  icon: IconName;
  color?: string;
  /** Tooltip text when it is not the label (why the button is disabled). */
  tip?: string;
  disabled?: boolean;
  loading?: boolean;
  onClick: () => void;
};

export function RowIcon({ label, icon, color, tip, disabled, loading, onClick }: Props) {
  return (
    <Tooltip label={tip ?? label} withArrow>
      <ActionIcon variant="subtle" color={color} aria-label={label} disabled={disabled} loading={loading} onClick={onClick}>
        <Icon name={icon} size={16} />
      </ActionIcon>
    </Tooltip>
  );
}
