import NextAuth from "next-auth";
import { NextRequest } from "next/server";
import { errorResponse, readApiBody } from "@/lib/api/route";
import { authOptions } from "@/lib/users/next-auth";

type Ctx = { params: Promise<{ nextauth: string[] }> };

async function handler(req: NextRequest, ctx: Ctx) {
  try {
    // next-auth reads form posts (its own CSRF token guards them) of any size: hand it a capped copy.
    const capped =
      req.method === "POST"
        ? new NextRequest(req.url, { method: "POST", headers: req.headers, body: (await readApiBody(req)) as BodyInit })
        : req;
    return NextAuth(capped as never, { params: await ctx.params } as never, authOptions());
  } catch (error) {
    return errorResponse(error, req);
  }
}

export { handler as GET, handler as POST };
