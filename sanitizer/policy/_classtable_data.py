"""The policy fast path's class table (``_classtable``), as generated data.

Generated from sanitizer/_chartables.py by python -m sanitizer.policy._classtable_gen:
do not edit.
"""

# What the table was made for: class_table() builds it instead if any differs.
UNICODE_VERSION = "18.0.0"
FLAGS = (
    "emoji",
    "graphic",
    "ideographic",
    "mongolian",
    "zwj",
    "vs16",
    "vs-standard",
    "vs-ideographic",
    "vs-mongolian",
    "tag-end",
    "nfc",
    "nfkc",
    "casefold",
    "mark",
)
CATEGORIES = (
    "nul",
    "line-break",
    "control",
    "path-separator",
    "bidi-control",
    "bidi-mark",
    "tag",
    "variation-selector",
    "bom",
    "joiner",
    "noncharacter",
    "private-use",
    "surrogate",
    "invisible",
    "format",
    "unassigned",
    "whitespace",
)

# Class id -> (category value or None, flags).
INFO = (
    ("nul", ()),
    ("control", ()),
    ("whitespace", ()),
    ("line-break", ()),
    (None, ("graphic",)),
    (None, ("emoji", "graphic")),
    ("path-separator", ("graphic",)),
    (None, ("casefold", "graphic")),
    ("whitespace", ("casefold", "nfkc")),
    (None, ("casefold", "graphic", "nfkc")),
    ("invisible", ("casefold",)),
    (None, ("mark", "nfc", "nfkc")),
    (None, ("mark", "nfc", "nfkc")),
    (None, ("casefold", "mark", "nfc", "nfkc")),
    ("invisible", ("casefold", "mark")),
    (None, ("casefold", "graphic", "nfc", "nfkc")),
    ("unassigned", ()),
    (None, ("mark",)),
    ("format", ()),
    ("bidi-mark", ("casefold",)),
    (None, ("mark", "nfc", "nfkc")),
    (None, ("casefold", "mark", "nfc", "nfkc")),
    (None, ("casefold", "mark", "nfkc")),
    ("invisible", ("casefold", "graphic")),
    (None, ("graphic", "nfc", "nfkc")),
    (None, ("graphic", "mongolian")),
    ("variation-selector", ("casefold", "mark", "mongolian", "vs-mongolian")),
    ("invisible", ("casefold", "mongolian", "vs-mongolian")),
    (None, ("mark", "mongolian")),
    (None, ("mark", "mongolian", "nfc", "nfkc")),
    ("whitespace", ("casefold", "nfc", "nfkc")),
    ("joiner", ("casefold",)),
    ("joiner", ("casefold", "zwj")),
    ("bidi-control", ("casefold",)),
    (None, ("casefold", "emoji", "graphic", "nfkc")),
    (None, ("casefold", "emoji", "graphic", "nfc", "nfkc")),
    (None, ("graphic", "ideographic")),
    (None, ("casefold", "graphic", "ideographic", "nfkc")),
    ("invisible", ("casefold", "graphic", "nfkc")),
    ("surrogate", ()),
    ("private-use", ()),
    (None, ("casefold", "graphic", "ideographic", "nfc", "nfkc")),
    ("noncharacter", ()),
    ("variation-selector", ("casefold", "mark", "vs-standard")),
    ("variation-selector", ("casefold", "mark", "vs-standard", "vs16")),
    ("bom", ("casefold",)),
    (None, ("ideographic", "mark")),
    ("tag", ("casefold",)),
    ("tag", ("casefold", "tag-end")),
    ("variation-selector", ("casefold", "mark", "vs-ideographic")),
)

# zlib of stage1 (4352 little-endian uint16 block numbers) + stage2 (168 blocks), base64.
PACKED = (
    "eNrtHYVi3Lhy2krdOFHqcbppm1yvd7eX9q45fgx3j5mZmZmZ7jEzM8NvPotsWZZlybDZ7HqUeA2yRpoZjUYjMMAZ"
    "OAvngACF8zCDLUhgG3aAwS5cgBQQMtiDizDPwz5cgstwBQ7gEG6Bq3ArXIPb4Ha4AxZwJxzl4Xr+fwPugrvhJhzD"
    "PXAv3Af3wwPwIDwUHR7T4Z3lh7kKj83/HwePhyfAE+FJ8OTi/rDhKfBUKzwcHR6Bp8HT4RnwTHgWPBueA8+F58Hz"
    "4QXwwjz9F8GL4SXwUngZvBxeAa+EV8Gr4TXwWngdvB7eAG+EN8Gb4S3wVngbvB3eAe+Ed6l8vTv/fw+8F95nhfcX"
    "Of+At1wfFMcP1d4PCR+uXPF0PgIfzc8+Bh+HT3Tm6yfhU+rs051yJcNn8tx8Fj7nePL5lje/kNekL8KX4MvwFfgq"
    "fA0eha/DN+CbopZ9C76tYn0Hvgvfg+/nZz+AH8KP4MfwE/ipePIz+Dn8Iv/9JfwKfi3eOoLfwG/hd/nv7+EP6v0/"
    "noo6dlrCnwLi/Dkivb90zslfxfFvDrl6JA9/L65C+f+P3rT5Z49atMlhLFn9l+L/ROFNDhP/J/5PYeL/FCb+T2Hi"
    "/xQm/k9h4v8UJv5PYeL/FNad//+G/8B/PWGi0Xrz/+EpbHD430SDDec/nFFw9lwOZ2pwlhBKBFD+e54WwO/kh1kj"
    "kPPED5RQicSBV8OWipnQhNBtmlCa5EAIP/D/Bty0yEQTagWz6JAk/Fi5EGeR6ai31An/m0liFhdkVkSbaZTykTjh"
    "1xISDTYSB14io81mpHtQlJO5mKlMV56NB0VZg+KpX0+8HQ5sRwJjOzzkvxzUD9PP+Fnt4e7uzu7uLtNwgbUAp1Ga"
    "/yPyXKUzzCHnSJrTEPMwqws0zvyyXLk909Rpll5eb6iQV0/dba7UkdAuTVTQJcs6SmOrxA8bMIxMmESKtRDZXJ8i"
    "iwGSB/XHUIAHR/kYS9gTIDS50PFm4hfjysDK+mIkYkfSlXNULaGQ71GdCcaoIzeU2iTaIyyskA7wEr8fZCWYzMMo"
    "lAZPqJQC5otqxC+uavjQhy2PjZb8teZ3b09Ea5SfeM7seWuQIGlHnuyYfOGQp0ZUoqkCHq+NtVhSSP47a2/xq6jI"
    "2TeXeBHlPyuEY84PaYoCvztJLgOMv5WhqR/a8afij+NHhb3Az89UDnjZMa1JqaCGKcRm+QWSVvzqlJdfEx7lv5A4"
    "u37Y5dcPjDfj6G/gt+mvSzTX9Cc2fkpsFZyRkv4aj+SEwIVYPKmXY67orwpSln/u0RLKfKc6s6WAeshfv2/Q38Av"
    "a++OSqlOfytDlJj1LxB/lf/zOn5JfpWahT+/YVImC8XvUjgF/zV+SdT82dyUeKdIKUGoyr9JJtJKCCyFNY+/UwhE"
    "nhdUnJnb/OclJh0bEFkckghVJw2O4q5Se8RR0/yg5NxH+UozUuIXBdERFP5KSbmR0YqelkZAUnRLuR2ke7kO1jEe"
    "Cm2WFplPHQcNqSIIY/tsf//S/iWZ4/xKWnBlM7+vRUqeWQcN/AJ1X1xlFgszjp8Ekj/GCJmXLZ236dSP+I841cZL"
    "+chl2+QVunqf0kBzW/Sj+DHW6B4ZLl++4oL4hK40A1kJQN2AmlU2gh+h8cPw4EDl6EURbLNfHfWv9K91U8+hWVP1"
    "BskEywNHa3I2Uj4GFIEG+eJtq6954GqaeCJkWWP7gtLg6WN+cLhwIfMAK9sQVrc87euDA0IOyAGHw8PDWw4PCtDP"
    "RwI00r96tT3+rQcD6oNg+qNJ2aK/YBiANCpP2l7rxn9//Fp6PHet0GjbZ0395ih3DTKniBYeI9Ymn44mxfResGiw"
    "7L+sgwOEza3i+FrdktRFFkzit2I3iNbVU5PnuEL8WNlzcbD+erfKaXjWpQkbDiKyXaMrjjtTRArnq/jJ75Lo+qfG"
    "3IoRmKQGjluJe8QmCULXDqwnzMgqBll8siRMphw22Yf2+E9bfJzJUIufmiFK3hU+jkYkl86SlI9myuuUXwshS3ku"
    "+HNU1wo/jy8x6vhpgteubWnYvu32ixeVYCa23J87dweHLckYKcwLFY3ye4uKkaff39oWwF+VZ0nC/RIcFotFRZLF"
    "NWmqNElYc4415zYz2huH/s+RLmh+oEZmaH6LyrP80YImNOX/KX+S01vHEm8suB5XcblTMYmEYgAzkT0eusKw4JSi"
    "6wnVptoBaUo3G9z+s7YISQ9YDApuDUInWFr9CnYTxCcejP3UkGZsfeYg27J0+2JJrcidK6tJVycvS5j/NCunJc30"
    "RD5lV/abhxds46ui5qeixxPvSFLDyj384ro5tEalWJtFWx99j/ttnUE1tIuX1v1dvvE3Ty0ZSyUtqvb/OkI4vbdE"
    "j+3oqImD9EiD8l2Juwt6/fp1Ua9GG6DZ2RHTV0cekUhidUEXg/ZGeFSUncmSk8PYSiX77ffbBCnUGi/Si7PhabS1"
    "P2ofYfPgaIJTDcvsl40/h6KzZdxrPDV+1LCESEtUzBEzrS//Spvh7TOdYji9bH95P1s8qSRb8cMX6xcacKjFQY4+"
    "Q7EmyL6vJkXZDqkZIaVnOdMDQ77JXJkYwCvoVUwf7dsfwC5jevURfxc3Hf7wusWfRWD09RbsscEw8bLnn8YPZmas"
    "cdqTgT4j7ZNJ44huFjBzz3T1Fp5r3k4z7+ViBF2NxQqY0KmN5VC3yaJqZmsrZBr6laHjpYk54KmGbAeFCM6JYvvn"
    "F6wmBMwX6lQU/tJdGw53bzjcnMCAo6ObR/xQ3lDXR+bN7oC4vLIETX/X/fvaLbmGiaVlRzs1AdVRrLFSVxyS8aHV"
    "BZJMsCwYnvhdU9D4j1vAfumeKtxruOKc9nMDGSo+PMtDlWg/mqpcJMEVYR/ifaaDzzH+3iv5RbLoncUbbSVAfeL4"
    "FU9FLrSfH7c1iFXfx8eBnQF030P3/F6vx6Dz+qNRzMoutqPppukxUOQajUbbq0MxDqK8RgxPHGLXx8Q6qVjn+eTN"
    "g5Et8hTkhdIz8QIWI3WYFx9O/7HGvYeqonaZwiZGh/M1Vqx69l+Jc2OX6jXyCarNMmAuRO+dH+yjO5vfr6ffWP9d"
    "JoO3xas1gAPoH2unioD5EMQ7HQLbtX9HsRtAv2KoqmrfTgbDFfHA7X/Tu9EpyrXW0hfNpDu1fRsAYRdXm5cGRo0x"
    "5uKiH/U3N27neOf8tTfc3QXHyJijoEu1P4ZkVM/212re+uQ/+k1z2UCb/7gxy97ZVqX1imsG7Q1JMNvEkq26oBUJ"
    "SQr7OyZoLw0bxv5xDa+F0kO/1J+eEfHN9Y+dqrt7BWQ7x5nYNKTsnsTiL1HuELIn7hibuXmwN9TfQBGYVxdQ1jIV"
    "Yx+znvR3rz0Vm2/VE8M2gzyiSppLUYuB1WwQ/aD3sfDkpZO+ry17tdPLuu9/xVz7X1X2nypGhcu1Z/YaNBNBuBWO"
    "HLPa62iOYrujudgAjMktZNCcYDB8+29v+paxhlyyVr0Wi7qsiJoCVe3Z2yBZrfaxofjFPgRe7ZVlw9t/zs0m3PJc"
    "3z+i9/5LmVHsMHusTRK8zWl9zbsdn54qYevJf2sPh6UUegS/nKv4FWcGehpBvcGc1Pdc22bM3Z8clj/BnMqqGoIR"
    "fxNtMDVYDJiaTmO8wxzpZf00i5uQQ/dXycgNRm3C2NLrb1N8218TxSSscmm48Qxb6doIhyZnQJV3UQCl0YVqK0CS"
    "+ekbknyhWCRdMbx9C/MRFrutbhQ0ELoQWa7HYj0SpQz6LLBxqjwJqf/eRcCrMvw8kkPxBPyfp4SgZOOZPcG69Yd7"
    "y1rsy3sWZE7jddIHp0XnbLr+anE3zeeGu63q6NtwfRM9vjWKNojsH+hhyO7lN0e5imE26vZn+wzqxskZ6yk/V9bV"
    "5Blx3pw//fahvmXbG7J7nXUDw100qJTwNO4354MysWy8uF7jpfEh5BkmlR5w0nRZdbaNxPeN7l9FOj3lCpdGD1Qt"
    "/VoUU5FNO3asVk070f4W+uaLItK8u8GX6oxZH9Zzt82Q7ZPU+ppTuxOtZ9u4YOY2jTY1W2l+8+1k6DnJf3eKha4U"
    "Y912IJWgv/og+856BWL5OQj7uxANWbBiyLRPnJY8W2b/gpk0Y+1vD9//jnk+toCtusdwnHXFw6WT5xBRL+vF6kMc"
    "DB2aS4eTsISNHGG5Dnll1navF6BnkXn8kzV9s0tt7uiu4jqu21vizaqyzJQb2TV1CrORJv6E6P9pvLUVZsWv2td7"
    "1hTPvX+gc35aQpbWmOmZ+Y7vhJWPjFn7fTfcaAG20vzHgiiOWakitU2oMifID9aLf9UViAHOvDWjn6P8myY/zJ4e"
    "uubtF8r1dqxafmM174boE2zw96/H/CRDDNxfees+fh0ygq3bRNt/vQnytUyDk46hurvlYG3akDaXBUrvhhkHtfdF"
    "pSAPyh9Txi/uoeW9wUoini6+ziD6nkf397r7v5flL/fkr36j5boNg72ZY9v3Otq+J9H3q1+LUYY6vLmqxIz9yo79"
    "yR372zur7khY5zEel/R4r9dwlCtGf/WRh7o8xclXmDy6ytMgzycs/+70R5M/dKflRbeq9X/UPBnzHyZbHI+PN2GO"
    "U4/5l9N8tRXj5kSDfhVg9aZgnywM8Q2F0wxDM3uqcKerbqx/DffDAycLD26fMDy0YbA9QQU2++tXx8f/BzbsQ4o="
)
