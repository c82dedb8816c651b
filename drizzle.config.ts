import { defineConfig } from "drizzle-kit";

/**
 * Two schema groups, two migration folders: `npm run db:generate` runs drizzle-kit once per group
 * (DRIZZLE_GROUP=control|school). The control database gets migrations/control, every school
 * database migrations/school.
 */
const group = process.env.DRIZZLE_GROUP === "control" ? "control" : "school";

export default defineConfig({
  dialect: "sqlite",
  schema: `./src/db/schema/${group}.ts`,
  out: `./migrations/${group}`,
});
