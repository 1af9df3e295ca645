#!/bin/sh
# tools/check_contents.sh [genie.h]: the CONTENTS list at the top of genie.h names the
# section markers (/* >>name ---) of the implementation, in the same order. Exit 1 and
# print both lists where they differ.
h=${1:-genie.h}
listed=$(sed -n '/^ \* CONTENTS/,/^ \*$/p' "$h" | sed -n 's/^ \*  *>>\([a-z_0-9]*\) .*/\1/p')
marked=$(sed -n 's|^/\* >>\([a-z_0-9]*\) -*.*\*/$|\1|p' "$h")
if [ "$listed" = "$marked" ] && [ -n "$listed" ]; then
    echo "  contents: $(echo "$listed" | wc -l) sections, listed in order"
    exit 0
fi
echo "FAIL contents: the CONTENTS list of $h and its >>markers differ"
echo "$listed" > /tmp/genie_contents_listed.$$; echo "$marked" > /tmp/genie_contents_marked.$$
diff /tmp/genie_contents_listed.$$ /tmp/genie_contents_marked.$$ | sed 's/^/  /'
rm -f /tmp/genie_contents_listed.$$ /tmp/genie_contents_marked.$$
exit 1
