package gluelab.files;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * What went wrong with a file, in words: Java's file exceptions often carry only the path
 * ({@code NotDirectoryException: /a/b}), which read as if the path were the message.
 */
public final class IoErrors {
    private IoErrors() {}

    public static String reason(IOException e) {
        // Encoders wrap the system's error ("I/O error writing PNG file!" around "No space left on device"): the cause says what happened.
        if (!(e instanceof FileSystemException) && e.getCause() instanceof IOException cause) return reason(cause);
        String file = e instanceof FileSystemException f ? f.getFile() : null;
        String why = e instanceof FileSystemException f ? f.getReason() : e.getMessage();
        if (why != null && !why.isBlank()) return file == null ? why : why + " (" + file + ")";
        return switch (e) {
            case NotDirectoryException x -> x.getFile() + " is not a folder";
            case AccessDeniedException x -> "permission denied (" + x.getFile() + ")";
            case FileAlreadyExistsException x -> x.getFile() + " is in the way (a file where a folder is needed?)";
            case NoSuchFileException x -> "no such file or folder: " + x.getFile();
            default -> e.getClass().getSimpleName() + (file == null ? "" : " (" + file + ")");
        };
    }
}
