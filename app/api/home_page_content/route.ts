import { route } from "@/lib/api/route";
import { getOptionRaw } from "@/lib/options";

export const GET = route({ auth: "public", handler: () => getOptionRaw("HomePageContent") });
