// Local-storage key of the remembered light/dark choice, shared by ColorSchemeScript (server
// layout) and the Mantine color scheme manager (client).
export const COLOR_SCHEME_KEY = "qiao-color-scheme";

/** Until the user picks light or dark with the top-bar switch, the console follows the OS. */
export const DEFAULT_COLOR_SCHEME = "auto";
