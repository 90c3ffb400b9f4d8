// Small stroke icons for the menu and top bar (no icon package in the project).
import type { ReactNode, SVGProps } from "react";
import type { MenuIcon } from "@/lib/ui/menu";

type IconProps = SVGProps<SVGSVGElement> & { size?: number };

function Svg({ size = 18, children, ...props }: IconProps & { children: ReactNode }) {
  return (
    <svg
      width={size}
      height={size}
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      {...props}
    >
      {children}
    </svg>
  );
}

type ActionIconName = "copy" | "check" | "edit" | "trash" | "eye" | "plus" | "search" | "refresh" | "dots" | "chevronDown" | "calendar";

const PATHS: Record<
  MenuIcon | ActionIconName | "sun" | "moon" | "logout" | "home" | "info" | "sidebarCollapse" | "sidebarExpand",
  ReactNode
> = {
  playground: <path d="M4 5h16v11H9l-5 4z M8 9.5h8 M8 12.5h5" />,
  pricing: (
    <>
      <path d="M3 12V4h8l10 10-8 8z" />
      <circle cx="7.5" cy="7.5" r="1.5" />
    </>
  ),
  channel: <path d="M12 3 3 8l9 5 9-5z M3 13l9 5 9-5" />,
  chat: <path d="M4 4h12v9H8l-4 3z M8 16v2h9l3 3V9h-2" />,
  token: (
    <>
      <circle cx="8" cy="15" r="4" />
      <path d="M11 12l9-9 M16.5 6.5l3 3 M14 9l2 2" />
    </>
  ),
  redemption: <path d="M3 8h18v4H3z M5 12v9h14v-9 M12 8v13 M12 8c-2-4-6-4-5-1 .5 1 5 1 5 1zm0 0c2-4 6-4 5-1-.5 1-5 1-5 1z" />,
  orders: <path d="M6 3h12v18l-3-2-3 2-3-2-3 2z M9 8h6 M9 12h6 M9 16h3" />,
  topup: (
    <>
      <rect x="3" y="6" width="18" height="13" rx="2" />
      <path d="M3 10h18 M7 15h3" />
    </>
  ),
  user: (
    <>
      <circle cx="9" cy="8" r="3.5" />
      <path d="M3 20c0-3.5 3-6 6-6s6 2.5 6 6 M16 4.5a3.5 3.5 0 0 1 0 7 M18 14c2 .8 3 3 3 6" />
    </>
  ),
  log: <path d="M5 20V11 M10 20V5 M15 20v-6 M20 20V8 M3 20h18" />,
  detail: <path d="M3 3v18h18 M7 15l4-4 3 3 5-6" />,
  midjourney: (
    <>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <circle cx="9" cy="10" r="2" />
      <path d="M21 16l-5-5-9 9" />
    </>
  ),
  task: <path d="M10 6h10 M10 12h10 M10 18h10 M4 6l1.5 1.5L8 5 M4 12l1.5 1.5L8 11 M4 18l1.5 1.5L8 17" />,
  audit: <path d="M12 3l7 3v5c0 4.5-3 8-7 10-4-2-7-5.5-7-10V6z M9 12l2 2 4-4" />,
  setting: (
    <>
      <path d="M4 6h9 M17 6h3 M4 12h3 M11 12h9 M4 18h11 M19 18h1" />
      <circle cx="15" cy="6" r="2" />
      <circle cx="9" cy="12" r="2" />
      <circle cx="17" cy="18" r="2" />
    </>
  ),
  sun: (
    <>
      <circle cx="12" cy="12" r="4" />
      <path d="M12 2v2 M12 20v2 M4.9 4.9l1.4 1.4 M17.7 17.7l1.4 1.4 M2 12h2 M20 12h2 M4.9 19.1l1.4-1.4 M17.7 6.3l1.4-1.4" />
    </>
  ),
  moon: <path d="M20 14.5A8 8 0 1 1 9.5 4a6.5 6.5 0 0 0 10.5 10.5z" />,
  logout: <path d="M15 4h4v16h-4 M10 8l-4 4 4 4 M6 12h10" />,
  sidebarCollapse: (
    <>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="M9 4v16 M16 10l-2 2 2 2" />
    </>
  ),
  sidebarExpand: (
    <>
      <rect x="3" y="4" width="18" height="16" rx="2" />
      <path d="M9 4v16 M14 10l2 2-2 2" />
    </>
  ),
  home: <path d="M3 11l9-7 9 7 M5 9.5V20h5v-6h4v6h5V9.5" />,
  copy: (
    <>
      <rect x="8" y="8" width="12" height="12" rx="2" />
      <path d="M16 8V5a1 1 0 0 0-1-1H5a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h3" />
    </>
  ),
  check: <path d="M5 12.5l4.5 4.5L19 7.5" />,
  edit: <path d="M4 20h4L19 9l-4-4L4 16z M13.5 6.5l4 4" />,
  trash: <path d="M4 7h16 M10 11v6 M14 11v6 M6 7l1 13h10l1-13 M9 7V4h6v3" />,
  eye: (
    <>
      <path d="M2 12s3.5-7 10-7 10 7 10 7-3.5 7-10 7S2 12 2 12z" />
      <circle cx="12" cy="12" r="3" />
    </>
  ),
  plus: <path d="M12 5v14 M5 12h14" />,
  search: (
    <>
      <circle cx="11" cy="11" r="7" />
      <path d="M20 20l-4-4" />
    </>
  ),
  refresh: <path d="M20 11a8 8 0 1 0-2.3 5.7 M20 4v7h-7" />,
  dots: <path d="M5 12h.01 M12 12h.01 M19 12h.01" strokeWidth={3} />,
  chevronDown: <path d="M6 9l6 6 6-6" />,
  calendar: (
    <>
      <rect x="3" y="5" width="18" height="16" rx="2" />
      <path d="M3 10h18 M8 3v4 M16 3v4" />
    </>
  ),
  info: (
    <>
      <circle cx="12" cy="12" r="9" />
      <path d="M12 11v6 M12 7.5v.5" />
    </>
  ),
};

export type IconName = keyof typeof PATHS;

export function Icon({ name, ...props }: IconProps & { name: IconName }) {
  return <Svg {...props}>{PATHS[name]}</Svg>;
}

export const IconCopy = (props: IconProps) => <Icon {...props} name="copy" />;
export const IconCheck = (props: IconProps) => <Icon {...props} name="check" />;
