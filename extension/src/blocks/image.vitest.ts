import { render, screen, waitFor } from "@testing-library/svelte";
import { describe, expect, it, vi } from "vitest";
import { fakeSession } from "../testing/fake-session";
import Image from "./Image.svelte";

describe("image", () => {
  it("fetches the upload with the session's client and shows it from an object URL", async () => {
    const createObjectURL = vi.spyOn(URL, "createObjectURL").mockReturnValue("blob:loopback/1");
    const revoke = vi.spyOn(URL, "revokeObjectURL").mockImplementation(() => {});
    const { client, context } = fakeSession();
    const { unmount } = render(Image, { props: { uploadId: "up_1", caption: "The new header" }, context });
    expect(screen.getByText("Loading image…")).toBeTruthy();
    const img = await screen.findByRole("img", { name: "The new header" });
    expect(client.file).toHaveBeenCalledWith("up_1", expect.any(AbortSignal));
    expect(createObjectURL).toHaveBeenCalledWith(expect.any(Blob));
    // The address holds no token: the token only ever travels in the fetch's header.
    expect(img.getAttribute("src")).toBe("blob:loopback/1");
    expect(screen.getByText("The new header")).toBeTruthy();
    unmount();
    expect(revoke).toHaveBeenCalledWith("blob:loopback/1");
  });

  it("says why when the image cannot be fetched", async () => {
    const { client, context } = fakeSession();
    client.file.mockRejectedValueOnce(new Error("There is no such file in your space."));
    render(Image, { props: { uploadId: "gone" }, context });
    await waitFor(() => expect(screen.getByRole("alert").textContent).toContain("There is no such file"));
  });
});
