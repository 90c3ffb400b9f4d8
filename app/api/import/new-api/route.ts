import { z } from "zod";
import { route } from "@/lib/api/route";
import { auditBy, writeAudit } from "@/lib/audit/write";
import { getImportJob, startImportJob } from "@/lib/import-new-api/job";

// Root's import of a new-api / one-api install (设置 → 迁移, docs/import.md): POST starts a dry
// run or, with apply, the import; GET answers its progress and report.
const body = z.object({
  from: z.string().trim().min(1, "请填写源数据库").max(2048),
  apply: z.boolean().default(false),
  logs: z.boolean().default(false),
});

export const GET = route({ auth: "root", handler: () => getImportJob() });

export const POST = route({
  auth: "root",
  body,
  handler: async ({ body, caller, req }) => {
    const state = startImportJob(body);
    if (body.apply) await writeAudit({ ...auditBy(caller, req), action: "import.new_api", detail: { logs: body.logs } });
    return state;
  },
});
