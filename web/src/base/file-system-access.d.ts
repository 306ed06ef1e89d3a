// The parts of the File System Access API (Chromium) that TypeScript's DOM types leave out: the folder picker, and
// asking for a handle's permission again.

declare global {
  type FileSystemAccessMode = { mode?: "read" | "readwrite" };

  interface FileSystemHandle {
    queryPermission(descriptor?: FileSystemAccessMode): Promise<PermissionState>;
    requestPermission(descriptor?: FileSystemAccessMode): Promise<PermissionState>;
  }

  interface Window {
    showDirectoryPicker?: (options?: FileSystemAccessMode & { id?: string }) => Promise<FileSystemDirectoryHandle>;
  }
}

export {};
