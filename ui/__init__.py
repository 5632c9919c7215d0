"""The composition root and the faces of Amend: the CLI, the terminal chat and the browser demo."""
