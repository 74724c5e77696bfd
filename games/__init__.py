"""The games app. Its ``engine`` subpackage is pure Python and never imports Django."""
