// Product defaults shown until the admin configures their own (spec §9: default logo /logo.png).
export const DEFAULT_SYSTEM_NAME = "Qiao";
export const DEFAULT_LOGO = "/logo.png";
export const PROJECT_REPOSITORY = "https://github.com/qiao-gateway/qiao";
