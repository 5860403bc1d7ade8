"""The built-in games. They register through the same plugin hook as third-party games."""
