import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  reactStrictMode: true,
  // The spec and new-api's clients write many paths with a trailing slash (`GET /api/user/`,
  // `POST /api/token/`): both forms are served directly. A redirect would lose a POST's body in
  // many clients; Next matches routes with the slash removed.
  skipTrailingSlashRedirect: true,
  // No answer is sniffed into another type (proxy.ts adds the pages' Content-Security-Policy).
  headers: async () => [{ source: "/:path*", headers: [{ key: "X-Content-Type-Options", value: "nosniff" }] }],
  // Native and server-only packages stay out of the bundles and load from node_modules.
  serverExternalPackages: [
    "better-sqlite3",
    "@prisma/adapter-better-sqlite3",
    "@prisma/adapter-pg",
    "@prisma/adapter-mariadb",
    "bcryptjs",
    "gpt-tokenizer",
    "redis",
    "stripe",
  ],
  experimental: {
    optimizePackageImports: ["@mantine/core", "@mantine/hooks"],
  },
};

export default nextConfig;
