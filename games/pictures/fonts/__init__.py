"""Bundled DejaVu fonts (see LICENSE.txt); a package so setuptools ships the *.ttf files."""
