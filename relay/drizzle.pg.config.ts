import { defineConfig } from "drizzle-kit";

// The PostgreSQL store's migrations, numbered apart from SQLite's (`drizzle.config.ts`).
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/storage/postgres/schema.ts",
  out: "./src/storage/postgres/pg-migrations",
});
