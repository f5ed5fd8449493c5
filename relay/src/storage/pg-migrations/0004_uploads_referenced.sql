ALTER TABLE "uploads" ADD COLUMN "referenced_at" text;--> statement-breakpoint
CREATE INDEX "uploads_orphans" ON "uploads" USING btree ("referenced_at","stored_at");--> statement-breakpoint
-- Images stored before this rule may be named by asks already: they are kept as if named.
UPDATE "uploads" SET "referenced_at" = "stored_at" WHERE "stored_at" IS NOT NULL;